package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// TestPlayerBanEndsAMergedKeysSession: a session left open on a key
// whose account then merged into another (link CODE --merge) is ended by
// a ban of the account it joined, as every session of a banned player is
// (docs/moderation.md: a player ban holds on "the account, with every
// key it has or is given later"). The session still named the account
// that was merged away, so the ban passed it by and it played on, on
// the node of the ban and on any other.
func TestPlayerBanEndsAMergedKeysSession(t *testing.T) {
	adminKey := newKey(t)
	t.Run("one node", func(t *testing.T) {
		ts := startServer(t, servertest.Moderated(t, adminKey.PublicKey()))
		banMergedKey(t, adminKey, ts, ts)
	})
	t.Run("two nodes on postgres", func(t *testing.T) {
		nodes := pgNodes(t, 2, servertest.Moderated(t, adminKey.PublicKey()))
		banMergedKey(t, adminKey, nodes[0], nodes[1])
	})
}

// banMergedKey: alpha's bot plays on there; alpha's key joins bob's
// account and an admin bans bob, both here; alpha's bot ends, banned.
func banMergedKey(t *testing.T, adminKey gossh.Signer, here, there *testServer) {
	t.Helper()
	alphaKey, bobKey := newKey(t), newKey(t)
	alpha := startBot(t, there.dial(t, "alpha", alphaKey), "--size 4")
	alphaState := playSome(t, alpha, alpha.mustRead(), 2)
	run(t, here.dial(t, "bob", bobKey), "scores", "")
	code := linkCodeOf(t, accountServer{here, nil}, bobKey)
	if r := run(t, here.dial(t, "alpha", alphaKey), "link "+code+" --merge", ""); r.code != wire.ExitOK {
		t.Fatalf("alpha's key joins bob's account: %+v", r)
	}
	// The merge left alpha's game to play on, bob's now.
	playSome(t, alpha, alphaState, 1)

	if r := run(t, here.dial(t, "root", adminKey), `admin ban bob --reason "cheating"`, ""); r.code != wire.ExitOK {
		t.Fatalf("ban bob: %+v", r)
	}
	next := run(t, here.dial(t, "alpha", alphaKey), "scores", "")
	line := strings.TrimSpace(next.stderr)
	if next.code != wire.ExitBanned || !strings.HasPrefix(line, "ssh2048: you are banned from this server") {
		t.Fatalf("alpha's key's next login: %+v, want status %d and the ban's line", next, wire.ExitBanned)
	}
	select {
	case err := <-alpha.done:
		if code := exitCode(t, err); code != wire.ExitBanned || strings.TrimSpace(alpha.stderr.String()) != line {
			t.Errorf("alpha's open bot session: status %d, stderr %q; want %d and %q", code, alpha.stderr.String(), wire.ExitBanned, line)
		}
	case <-time.After(15 * time.Second):
		t.Errorf("alpha's open bot session, its key now bob's, still plays 15 s after bob's ban")
	}
}
