package server_test

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
	"github.com/ssh2048/ssh2048/wire"
)

// TestBanEndsOpenSessions: a ban ends at once what the banned still had
// open, not only their next login: their game screen (terminal restored,
// then the ban's line), their bot, their spectating and their race, each
// with the line and the status a banned login gets; a banned racer
// leaves the race as one who quits (a forfeit on the other racer's
// results), those watching eve see her leave, and other players'
// sessions play on.
func TestBanEndsOpenSessions(t *testing.T) {
	tests := []struct {
		name   string
		target func(eve gossh.Signer) string // what the admin bans
	}{
		{"player", func(gossh.Signer) string { return "eve" }},
		{"key", func(eve gossh.Signer) string { return gossh.FingerprintSHA256(eve.PublicKey()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			adminKey := newKey(t)
			ts := startServer(t, servertest.Moderated(t, adminKey.PublicKey()),
				servertest.Races(race.WithTimes(200*time.Millisecond, 200*time.Millisecond, 5*time.Second)),
				func(c *server.Config) { c.Limits.KeyRate = 1000 })
			admin := ts.dial(t, "root", adminKey)
			eveKey := newKey(t)
			eve := ts.dial(t, "eve", eveKey)
			bob := ts.dial(t, "bob", newKey(t))

			// Bob plays a bot game, which eve watches.
			bobBot := startBot(t, bob, "--size 4")
			bobState := playSome(t, bobBot, bobBot.mustRead(), 4)
			watching := openScreen(t, eve, "watch bob", 100, 30)
			watching.waitText("eve watching bob", "bob 4×4 bot")
			// Eve plays on her game screen, and a bot game.
			screen, out, send := ptySession(t, eve)
			waitFor(t, "eve's game screen", func() bool { return strings.Contains(out.String(), "Moves") })
			send(arrowLeft + arrowUp)
			eveBot := startBot(t, eve, "--size 3")
			playSome(t, eveBot, eveBot.mustRead(), 2)
			// A guest watches eve.
			spectator := openScreen(t, ts.dialGuest(t), "watch eve", 100, 30)
			spectator.waitText("the guest watching eve", "eve", "live")
			// Eve races carl, last: the ban comes while the race runs.
			racing := openScreen(t, eve, "race", 100, 30)
			racing.waitText("the public lobby", "Race · public lobby")
			carl := openScreen(t, ts.dial(t, "carl", newKey(t)), "race", 80, 24)
			racing.waitText("eve's race", "left", "Place")
			carl.waitText("carl's race", "left", "Place")

			r := run(t, admin, "admin ban "+tt.target(eveKey)+` --for 7d --show-reason --reason "cheating"`, "")
			if r.code != wire.ExitOK {
				t.Fatalf("ban: %+v", r)
			}
			banned := run(t, ts.dial(t, "eve", eveKey), "scores", "")
			line := strings.TrimSpace(banned.stderr)
			if banned.code != wire.ExitBanned || !strings.HasPrefix(line, "ssh2048: you are banned from this server until ") || !strings.HasSuffix(line, ": cheating.") {
				t.Fatalf("eve's next login: %+v", banned)
			}

			if code := waitSession(t, screen); code != wire.ExitBanned {
				t.Errorf("eve's game screen: status %d, want %d", code, wire.ExitBanned)
			}
			if last := leftTerminal(t, out.String()); !strings.Contains(last, line) {
				t.Errorf("eve's game screen's last line %q, want %q", last, line)
			}
			if code := eveBot.wait(); code != wire.ExitBanned || strings.TrimSpace(eveBot.stderr.String()) != line {
				t.Errorf("eve's bot: status %d, stderr %q; want %d and %q", code, eveBot.stderr.String(), wire.ExitBanned, line)
			}
			for what, v := range map[string]*vtScreen{"spectating": watching, "racing": racing} {
				if code := v.wait(); code != wire.ExitBanned {
					t.Errorf("eve %s: status %d, want %d", what, code, wire.ExitBanned)
				}
				if !strings.Contains(v.text(), strings.TrimPrefix(line, "ssh2048: ")) {
					t.Errorf("eve %s: no ban line on the screen:\n%s", what, v.text())
				}
			}
			spectator.waitText("eve leaving the guest's screen", "eve left; here is the last board.")
			spectator.send("q")
			if code := spectator.wait(); code != wire.ExitOK {
				t.Errorf("the guest watching eve: status %d", code)
			}
			carl.waitText("carl's results, eve forfeited", "Results", "left: forfeit")
			carl.send("q")
			carl.wait()
			// Bob played on throughout.
			playSome(t, bobBot, bobState, 4)
			bobBot.finish()
		})
	}
}

// waitSession is s's exit status once it ends; a session that does not
// end fails the test rather than hang it.
func waitSession(t *testing.T, s *gossh.Session) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case err := <-done:
		return exitCode(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("the session did not end")
		return -1
	}
}

// TestBanEndsSessionsOnOtherNodes: on a cluster (two nodes over one
// PostgreSQL), a ban made on one node ends the banned player's session
// on the other, as soon as the bus tells it, with the line and status a
// banned login gets.
func TestBanEndsSessionsOnOtherNodes(t *testing.T) {
	adminKey := newKey(t)
	nodes := pgNodes(t, 2, servertest.Moderated(t, adminKey.PublicKey()))
	a, b := nodes[0], nodes[1]
	eveKey := newKey(t)
	eve := startBot(t, b.dial(t, "eve", eveKey), "--size 4")
	playSome(t, eve, eve.mustRead(), 2)

	r := run(t, a.dial(t, "root", adminKey), `admin ban eve --reason "cheating"`, "")
	if r.code != wire.ExitOK {
		t.Fatalf("ban on node a: %+v", r)
	}
	if code := eve.wait(); code != wire.ExitBanned || !strings.HasPrefix(eve.stderr.String(), "ssh2048: you are banned from this server until lifted.") {
		t.Fatalf("eve's bot on node b: status %d, stderr %q; want %d and the ban's line", code, eve.stderr.String(), wire.ExitBanned)
	}
}

// pgNodes starts n servers, the nodes of one cluster over a fresh
// database on a real PostgreSQL (pgDatabase), each with opts.
func pgNodes(t *testing.T, n int, opts ...serverOption) []*testServer {
	t.Helper()
	url := pgDatabase(t)
	nodes := make([]*testServer, n)
	for i := range nodes {
		nodes[i] = pgNode(t, url, false, opts...)
	}
	return nodes
}

// pgNode is a node of a cluster over the database at url, as pgNodes
// starts them; deaf: its store tells of no merge.
func pgNode(t *testing.T, url string, deaf bool, opts ...serverOption) *testServer {
	t.Helper()
	s := servertest.StartOver(t, t.TempDir(), "127.0.0.1:0", func(log *slog.Logger) (servertest.Backing, error) {
		p, err := postgres.Open(context.Background(), url, postgres.WithLogger(log))
		if deaf {
			return deafPostgres{p}, err
		}
		return p, err
	}, append([]serverOption{noBotRate}, opts...)...)
	return &testServer{srv: s.Srv, addr: s.Addr, dir: s.Dir, logs: s.Logs}
}

// pgDatabase is a fresh database on a real PostgreSQL (pgtest), stopped
// when the test ends; without PostgreSQL installed the test is skipped,
// except under CI.
func pgDatabase(t *testing.T) string {
	t.Helper()
	pg, err := pgtest.Start()
	if err != nil {
		if os.Getenv("CI") != "true" && strings.Contains(err.Error(), "not installed") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Cleanup(pg.Close)
	return pg.Database(t)
}
