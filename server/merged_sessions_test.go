package server_test

// Sessions left open on a key whose account then merged into another
// (link CODE --merge) on a node that did not hear of the merge: its bus
// was down when the link committed (deafSQLite, deafPostgres), so it
// did not end them as it ends the sessions of an account merged away
// (merge_ends_test.go). They still name the account merged away
// (session.Session.Player), and must neither escape what holds on the
// account they joined nor act on another's.

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/sqlite"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// TestPlayerBanEndsAMergedKeysSession: a session left open on a key
// whose account then merged into another (link CODE --merge), on a node
// that did not hear of the merge, is ended by a ban of the account it
// joined, as every session of a banned player is (docs/moderation.md: a
// player ban holds on "the account, with every key it has or is given
// later"). The session still named the account that was merged away, so
// the ban passed it by and it played on, on the node of the ban and on
// any other.
func TestPlayerBanEndsAMergedKeysSession(t *testing.T) {
	adminKey := newKey(t)
	t.Run("one node", func(t *testing.T) {
		ts := startDeafServer(t, servertest.Moderated(t, adminKey.PublicKey()))
		banMergedKey(t, adminKey, ts, ts)
	})
	t.Run("two nodes on postgres", func(t *testing.T) {
		url := pgDatabase(t)
		here := pgNode(t, url, false, servertest.Moderated(t, adminKey.PublicKey()))
		there := pgNode(t, url, true, servertest.Moderated(t, adminKey.PublicKey()))
		banMergedKey(t, adminKey, here, there)
	})
}

// banMergedKey: alpha's bot plays on there, which hears of no merge;
// alpha's key joins bob's account and an admin bans bob, both here;
// alpha's bot ends, banned.
func banMergedKey(t *testing.T, adminKey gossh.Signer, here, there *testServer) {
	t.Helper()
	alphaKey := newKey(t)
	alpha := startBot(t, there.dial(t, "alpha", alphaKey), "--size 4")
	alphaState := playSome(t, alpha, alpha.mustRead(), 2)
	bobKey := here.visited(t, "bob")
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

// TestMergedKeysScreenMakesNoStrangersGame: a game screen left open on a
// key whose account then merged into another, on a node that did not
// hear of the merge, still names the account merged away; a new game it
// opens is refused (its account is gone), and never lands on the account
// made next; the screen ends with the line and status 3 of a session
// whose key joined another account (docs/accounts.md). SQLite gave a new
// account the id of the account just deleted when it was the newest,
// and the open screen's next board became that stranger's game.
func TestMergedKeysScreenMakesNoStrangersGame(t *testing.T) {
	ts := startDeafServer(t)
	bobKey, alphaKey := ts.visited(t, "bob"), newKey(t)
	alpha := openScreen(t, ts.dial(t, "alpha", alphaKey), "", 100, 30)
	alpha.waitText("alpha's game", "Moves 0")
	code := linkCodeOf(t, accountServer{ts, nil}, bobKey)
	if r := run(t, ts.dial(t, "alpha", alphaKey), "link "+code+" --merge", ""); r.code != 0 {
		t.Fatalf("alpha's key joins bob's account: %+v", r)
	}
	ts.visited(t, "carl") // the account made next
	alpha.send("5")
	if status := alpha.wait(); status != wire.ExitTakenOver || !strings.Contains(alpha.text(), session.MovedText) {
		t.Errorf("alpha's open screen, its account merged away, after 5: status %d, screen\n%s\nwant %d and %q",
			status, alpha.text(), wire.ExitTakenOver, session.MovedText)
	}
	carl, err := ts.store.FindPlayer(context.Background(), "carl")
	if err != nil {
		t.Fatal(err)
	}
	if games, err := ts.store.PlayerGames(context.Background(), carl.ID, 10); err != nil || len(games) != 0 {
		t.Fatalf("carl's games: %+v, %v; want none: alpha's open screen played on carl's account", games, err)
	}
}

// TestMergedKeysGameTakenOverByItsAccount: a bot left open on a key
// whose account then merged into another, on a node that did not hear of
// the merge, plays a game that is now that account's; a session of the
// account opening it takes it over, and the bot's next move is told so,
// status 3, as after any takeover. It was told that the merge had ended
// its game, which went on in the newer session.
func TestMergedKeysGameTakenOverByItsAccount(t *testing.T) {
	ts := startDeafServer(t)
	bobKey, alphaKey := ts.visited(t, "bob"), newKey(t)
	alpha := startBot(t, ts.dial(t, "alpha", alphaKey), "--size 4")
	alphaState := playSome(t, alpha, alpha.mustRead(), 3)
	code := linkCodeOf(t, accountServer{ts, nil}, bobKey)
	if r := run(t, ts.dial(t, "alpha", alphaKey), "link "+code+" --merge", ""); r.code != 0 {
		t.Fatalf("alpha's key joins bob's account: %+v", r)
	}
	bob := startBot(t, ts.dial(t, "bob", bobKey), "--size 4")
	if st := bob.mustRead(); st.Moves != alphaState.Moves || st.Score != alphaState.Score {
		t.Fatalf("bob's bot opened %+v, want alpha's game, now bob's: %+v", st, alphaState)
	}
	alpha.send("left")
	if _, ok := alpha.read(); ok {
		t.Fatal("alpha's bot moved on the game bob's session took over")
	}
	if code := alpha.wait(); code != wire.ExitTakenOver || !strings.Contains(alpha.stderr.String(), "opened in a newer session") {
		t.Errorf("alpha's bot after bob's took its game over: status %d, stderr %q; want %d and a newer session's takeover",
			code, alpha.stderr.String(), wire.ExitTakenOver)
	}
	bob.finish()
}

// deafSQLite and deafPostgres are stores that tell of no merge
// (store.MergeWatcher): the store of a node that did not hear of a link,
// its bus down since the link committed and not listening yet again.
type (
	deafSQLite   struct{ *sqlite.Store }
	deafPostgres struct{ *postgres.Store }
)

func (deafSQLite) OnAccountsMerged(func(store.AccountID), func()) func()   { return func() {} }
func (deafPostgres) OnAccountsMerged(func(store.AccountID), func()) func() { return func() {} }

// startDeafServer is startServer over a store that tells of no merge.
func startDeafServer(t *testing.T, opts ...serverOption) *testServer {
	t.Helper()
	dir := t.TempDir()
	var sq *sqlite.Store
	s := servertest.StartOver(t, dir, "127.0.0.1:0", func(log *slog.Logger) (servertest.Backing, error) {
		var err error
		sq, err = sqlite.Open(context.Background(), dir, sqlite.WithLogger(log))
		return deafSQLite{sq}, err
	}, append([]serverOption{noBotRate}, opts...)...)
	return &testServer{srv: s.Srv, store: sq, addr: s.Addr, dir: s.Dir, logs: s.Logs}
}

// TestMergedKeysOpenEndsTheSession: a session that logged in as an
// account a link deleted just after, on a node that did not hear of the
// link, opens its game (its bot's, its screen's, the daily, its race's
// once the race runs): the account is gone, and the session ends with
// the line and status 3 of a session whose key joined another account,
// not as a failure of the server's.
func TestMergedKeysOpenEndsTheSession(t *testing.T) {
	tests := []struct {
		name   string
		cmd    string // a screen's command line, or the arguments of a bot's
		screen bool
		race   bool // another racer joins with the same command, so that the race runs
		says   string
	}{
		{name: "bot", cmd: "--size 4", says: "ssh2048: " + session.MovedText},
		{name: "racing bot", cmd: "--race --size 3", race: true, says: "ssh2048: " + session.MovedText},
		{name: "game screen", cmd: "play --size 4", screen: true, says: session.MovedText},
		{name: "daily", cmd: "daily", screen: true, says: session.MovedText},
		{name: "race screen", cmd: "race", screen: true, race: true, says: "This key joined another account"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, held := startHeldLogins(t, true,
				servertest.Races(race.WithTimes(200*time.Millisecond, 200*time.Millisecond, 8*time.Second)),
				func(c *server.Config) { c.Limits.KeyRate = 1000 })
			bobKey, alphaKey := ts.visited(t, "bob"), ts.visited(t, "alpha")
			held.hold(gossh.FingerprintSHA256(alphaKey.PublicKey()))
			open := func(c *gossh.Client) func() (int, string) {
				if tt.screen {
					scr := openScreen(t, c, tt.cmd, 100, 30)
					return func() (int, string) { return scr.wait(), scr.text() }
				}
				b := startBot(t, c, tt.cmd)
				return func() (int, string) { return b.wait(), strings.TrimSpace(b.stderr.String()) }
			}
			alpha := open(ts.dial(t, "alpha", alphaKey))
			held.linkWhileHeld(t, ts, alphaKey, bobKey)
			if tt.race {
				open(ts.dial(t, "carl", newKey(t)))
			}
			if status, said := alpha(); status != wire.ExitTakenOver || !strings.Contains(said, tt.says) {
				t.Errorf("alpha's %s, its account merged away: status %d, said\n%s\nwant %d and %q", tt.name, status, said, wire.ExitTakenOver, tt.says)
			}
			// An account merged away is the player's doing, not the
			// server's fault: nothing an operator should be paged for.
			for line := range strings.Lines(ts.logs.String()) {
				if strings.Contains(line, "level=ERROR") {
					t.Errorf("logged as an error: %s", line)
				}
			}
		})
	}
}
