package server_test

import (
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// TestKeyBanEndsThatKeysOpenSessions: a key ban ends what that key has
// open (docs/moderation.md: "A ban ends at once what the banned key or
// player has open"), and that key only (its table: a key ban refuses
// "that key only"), whichever of an account's keys it names: the key of
// each session, not the key that made the account.
func TestKeyBanEndsThatKeysOpenSessions(t *testing.T) {
	for _, banned := range []string{"linked", "founding"} {
		t.Run(banned, func(t *testing.T) {
			adminKey := newKey(t)
			ts := startServer(t, servertest.Moderated(t, adminKey.PublicKey()))
			admin := ts.dial(t, "root", adminKey)
			acc := accountServer{ts, ts.store}
			desk, laptop := newKey(t), newKey(t) // desk made the account
			run(t, ts.dial(t, "ann", desk), "scores", "")
			if r := run(t, ts.dial(t, "lap", laptop), "link "+linkCodeOf(t, acc, desk), ""); r.code != 0 {
				t.Fatalf("link the laptop: %+v", r)
			}
			deskBot := startBot(t, ts.dial(t, "ann", desk), "--size 4")
			deskState := playSome(t, deskBot, deskBot.mustRead(), 2)
			lapBot := startBot(t, ts.dial(t, "ann", laptop), "--size 5")
			lapState := playSome(t, lapBot, lapBot.mustRead(), 2)

			bannedKey, bannedBot, freeBot, freeState := laptop, lapBot, deskBot, deskState
			if banned == "founding" {
				bannedKey, bannedBot, freeBot, freeState = desk, deskBot, lapBot, lapState
			}
			fp := gossh.FingerprintSHA256(bannedKey.PublicKey())
			if r := run(t, admin, "admin ban "+fp+` --reason "stolen key"`, ""); r.code != wire.ExitOK {
				t.Fatalf("ban the %s key: %+v", banned, r)
			}
			if r := run(t, ts.dial(t, "ann", bannedKey), "scores", ""); r.code != wire.ExitBanned {
				t.Fatalf("the %s key's next login: %+v, want status %d", banned, r, wire.ExitBanned)
			}
			select {
			case err := <-bannedBot.done:
				if code := exitCode(t, err); code != wire.ExitBanned {
					t.Errorf("the banned %s key's open bot session: status %d, want %d", banned, code, wire.ExitBanned)
				}
			case <-time.After(15 * time.Second):
				t.Errorf("the banned %s key's open bot session still plays 15 s after the ban", banned)
			}
			// The other key is not banned: its session plays on.
			select {
			case err := <-freeBot.done:
				t.Errorf("the unbanned key's bot session ended with status %d (stderr %q): a key ban is of that key only",
					exitCode(t, err), freeBot.stderr.String())
			default:
				playSome(t, freeBot, freeState, 1)
			}
		})
	}
}
