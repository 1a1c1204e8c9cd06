package server_test

import (
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/moderation"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// forEachModerated is forEachStore with an admin (by the admin keys
// file) whose key is admin, and the blocked word "admin".
func forEachModerated(t *testing.T, admin gossh.Signer, test func(t *testing.T, ts accountServer)) {
	forEachStoreWith(t, func(t *testing.T) []serverOption {
		return []serverOption{servertest.Moderated(t, admin.PublicKey()), func(c *server.Config) {
			c.Blocked = moderation.NewBlocklist("admin")
		}}
	}, test)
}

// adminAs runs `admin …` with the admin's key and wants status want.
func adminAs(t *testing.T, ts accountServer, admin gossh.Signer, cmd string, want int) result {
	t.Helper()
	r := run(t, ts.dial(t, "sysop", admin), "admin "+cmd, "")
	if r.code != want {
		t.Fatalf("admin %s: status %d, want %d: %+v", cmd, r.code, want, r)
	}
	return r
}

// TestBanHoldsOnEveryKey: a ban of an account refuses every key of it,
// a key linked before the ban too, with the one line and status; a
// banned key is refused at the door when it comes to link itself into a
// clean account, and that account's code stays good for another key.
func TestBanHoldsOnEveryKey(t *testing.T) {
	admin := newKey(t)
	forEachModerated(t, admin, func(t *testing.T, ts accountServer) {
		desk, laptop := newKey(t), newKey(t)
		run(t, ts.dial(t, "ann", desk), "scores", "")
		if r := run(t, ts.dial(t, "lap", laptop), "link "+linkCodeOf(t, ts, desk), ""); r.code != 0 {
			t.Fatalf("link the laptop: %+v", r)
		}
		adminAs(t, ts, admin, `ban ann --reason "spam"`, wire.ExitOK)
		for name, key := range map[string]gossh.Signer{"desk": desk, "laptop, linked before the ban": laptop} {
			r := run(t, ts.dial(t, "ann", key), "scores", "")
			if r.code != wire.ExitBanned || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "banned from this server") {
				t.Errorf("ann's %s after the ban: %+v, want one line and status %d", name, r, wire.ExitBanned)
			}
		}

		mal, bob, fresh := newKey(t), newKey(t), newKey(t)
		run(t, ts.dial(t, "mal", mal), "scores", "")
		run(t, ts.dial(t, "bob", bob), "scores", "")
		run(t, ts.dial(t, "fresh", fresh), "scores", "")
		adminAs(t, ts, admin, "ban "+gossh.FingerprintSHA256(mal.PublicKey())+` --reason "spam"`, wire.ExitOK)
		code := linkCodeOf(t, ts, bob)
		if r := run(t, ts.dial(t, "mal", mal), "link "+code+" --merge", ""); r.code != wire.ExitBanned || r.stdout != "" {
			t.Fatalf("a banned key links into bob's account: %+v, want status %d", r, wire.ExitBanned)
		}
		if w := whoami(t, ts, "bob", bob); w["keys"] != "1" {
			t.Fatalf("bob after the banned key tried: %v, want one key", w)
		}
		if r := run(t, ts.dial(t, "fresh", fresh), "link "+code, ""); r.code != 0 {
			t.Fatalf("bob's code from a clean key after the refusal: %+v", r)
		}
	})
}

// TestRenameLocksTheName: an admin's rename holds against the player's
// own `name` until its lock ends (one line, status 20); a name with a
// blocked word is refused as no name (status 2), and nothing changes.
func TestRenameLocksTheName(t *testing.T) {
	admin := newKey(t)
	forEachModerated(t, admin, func(t *testing.T, ts accountServer) {
		key := newKey(t)
		run(t, ts.dial(t, "imposter", key), "scores", "")
		adminAs(t, ts, admin, `rename imposter Someone --lock 7d --reason "impersonation"`, wire.ExitOK)
		r := run(t, ts.dial(t, "x", key), "name Mine", "")
		if r.code != wire.ExitRefused || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "an admin set your name") {
			t.Fatalf("name during the lock: %+v, want one line and status %d", r, wire.ExitRefused)
		}
		if r := run(t, ts.dial(t, "x", key), "name", ""); strings.TrimSpace(r.stdout) != "Someone" {
			t.Fatalf("name after the refusal: %+v, want Someone", r)
		}
		if d := adminAs(t, ts, admin, "player Someone", wire.ExitOK).stdout; !strings.Contains(d, `name: "Someone" from`) || !strings.Contains(d, `name: "imposter" from`) ||
			strings.Count(d, "key: ") != 1 {
			t.Fatalf("admin player after the rename:\n%s", d)
		}
		adminAs(t, ts, admin, `rename Someone Someone --lock 0 --reason "lifted"`, wire.ExitOK)
		if r := run(t, ts.dial(t, "x", key), "name TheAdmin", ""); r.code != wire.ExitUsage || !strings.Contains(r.stderr, "does not allow") {
			t.Fatalf("name with a blocked word: %+v, want status %d", r, wire.ExitUsage)
		}
		if r := run(t, ts.dial(t, "x", key), "name Mine", ""); r.code != 0 {
			t.Fatalf("name once the lock is lifted: %+v", r)
		}
	})
}
