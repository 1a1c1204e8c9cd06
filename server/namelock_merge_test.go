package server_test

import (
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/wire"
)

// TestRenameLockHoldsThroughAMerge: an admin's rename locks the
// player's name (docs/moderation.md: "Until the lock ends … the player's
// `name NEW` is refused"). A player must not shed the lock by merging the
// locked account into a fresh one of their own (`link CODE --merge` from
// the locked key) and then take back the very name the admin took away,
// which the merge holds for the fresh account: the lock used to stay with
// the account that was merged away.
func TestRenameLockHoldsThroughAMerge(t *testing.T) {
	adminKey := newKey(t)
	ts := startServer(t, servertest.Moderated(t, adminKey.PublicKey()))
	acc := accountServer{ts, ts.store}
	locked := newKey(t)
	playBotMove(t, acc, "imposter", locked)
	if r := run(t, ts.dial(t, "sysop", adminKey), `admin rename imposter Someone --lock 30d --reason "impersonation"`, ""); r.code != wire.ExitOK {
		t.Fatalf("admin rename: %+v", r)
	}
	if r := run(t, ts.dial(t, "x", locked), "name imposter", ""); r.code != wire.ExitRefused {
		t.Fatalf("name imposter during the lock: %+v, want status %d", r, wire.ExitRefused)
	}

	// The same person makes a fresh account, and merges the locked one
	// into it from the locked key.
	fresh := newKey(t)
	run(t, ts.dial(t, "whoever", fresh), "scores", "")
	if r := run(t, ts.dial(t, "x", locked), "link "+linkCodeOf(t, acc, fresh)+" --merge", ""); r.code != wire.ExitOK {
		t.Fatalf("merge the locked account into the fresh one: %+v", r)
	}
	r := run(t, ts.dial(t, "x", locked), "name imposter", "")
	if r.code != wire.ExitRefused || !strings.Contains(r.stderr, "an admin set your name") {
		name := run(t, ts.dial(t, "x", locked), "name", "").stdout
		t.Fatalf("name imposter after merging the locked account away: %+v (name now %q); want status %d, %q",
			r, strings.TrimSpace(name), wire.ExitRefused, "an admin set your name")
	}
}
