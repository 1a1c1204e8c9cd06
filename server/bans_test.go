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
			// Eve watches it, plays on her game screen and a bot,
			// and races carl, last: the ban comes while the race runs;
			// a guest watches eve.
			eves := openToEnd(t, ts, "eve", eve, 100)

			r := run(t, admin, "admin ban "+tt.target(eveKey)+` --for 7d --show-reason --reason "cheating"`, "")
			if r.code != wire.ExitOK {
				t.Fatalf("ban: %+v", r)
			}
			banned := run(t, ts.dial(t, "eve", eveKey), "scores", "")
			line := strings.TrimSpace(banned.stderr)
			if banned.code != wire.ExitBanned || !strings.HasPrefix(line, "ssh2048: you are banned from this server until ") || !strings.HasSuffix(line, ": cheating.") {
				t.Fatalf("eve's next login: %+v", banned)
			}

			eves.checkEnded(t, wire.ExitBanned, strings.TrimPrefix(line, "ssh2048: "), "")
			// Bob played on throughout.
			playSome(t, bobBot, bobState, 4)
			bobBot.finish()
		})
	}
}

// endedSessions are a player's sessions that the server is to end (a
// ban, a merge): a game screen, a bot, the player watching bob's bot
// game and racing carl; and the screens of others that see the player
// go: a guest watching the player, and carl's race.
type endedSessions struct {
	name             string
	screen           *gossh.Session
	out              *syncBuffer
	bot              *botSession
	watching, racing *vtScreen
	spectator, carl  *vtScreen
}

// openToEnd opens name's sessions on c, a client of ts, where bob plays
// a 4×4 bot game: name's race screen is w columns wide, and the race
// runs once it returns.
func openToEnd(t *testing.T, ts *testServer, name string, c *gossh.Client, w int) endedSessions {
	t.Helper()
	e := endedSessions{name: name}
	e.watching = openScreen(t, c, "watch bob", w, 30)
	e.watching.waitText(name+" watching bob", "bob 4×4 bot")
	var send func(string)
	e.screen, e.out, send = ptySession(t, c)
	waitFor(t, name+"'s game screen", func() bool { return strings.Contains(e.out.String(), "Moves") })
	send(arrowLeft + arrowUp)
	e.bot = startBot(t, c, "--size 3")
	playSome(t, e.bot, e.bot.mustRead(), 2)
	e.spectator = openScreen(t, ts.dialGuest(t), "watch "+name, 100, 30)
	e.spectator.waitText("the guest watching "+name, name, "live")
	e.racing = openScreen(t, c, "race", w, 30)
	e.racing.waitText("the public lobby", "Race · public lobby")
	e.carl = openScreen(t, ts.dial(t, "carl", newKey(t)), "race", 80, 24)
	e.racing.waitText(name+"'s race", "left", "Place")
	e.carl.waitText("carl's race", "left", "Place")
	return e
}

// checkEnded: each of the player's sessions ended with status, saying
// text (the bot on stderr after "ssh2048: "; the race raceText, or text
// if empty), the game screen having given the terminal back; the guest
// watching saw the player leave, and carl's results show a forfeit.
func (e endedSessions) checkEnded(t *testing.T, status int, text, raceText string) {
	t.Helper()
	if code := waitSession(t, e.screen); code != status {
		t.Errorf("%s's game screen: status %d, want %d", e.name, code, status)
	}
	if last := leftTerminal(t, e.out.String()); !strings.Contains(last, text) {
		t.Errorf("%s's game screen's last line %q, want %q", e.name, last, text)
	}
	if code := e.bot.wait(); code != status || strings.TrimSpace(e.bot.stderr.String()) != "ssh2048: "+text {
		t.Errorf("%s's bot: status %d, stderr %q; want %d and %q", e.name, code, e.bot.stderr.String(), status, "ssh2048: "+text)
	}
	if raceText == "" {
		raceText = text
	}
	for _, v := range []struct {
		what string
		scr  *vtScreen
		says string
	}{{"spectating", e.watching, text}, {"racing", e.racing, raceText}} {
		if code := v.scr.wait(); code != status {
			t.Errorf("%s %s: status %d, want %d", e.name, v.what, code, status)
		}
		if !strings.Contains(v.scr.text(), v.says) {
			t.Errorf("%s %s: the screen does not say %q:\n%s", e.name, v.what, v.says, v.scr.text())
		}
	}
	e.spectator.waitText(e.name+" leaving the guest's screen", e.name+" left; here is the last board.")
	e.spectator.send("q")
	if code := e.spectator.wait(); code != wire.ExitOK {
		t.Errorf("the guest watching %s: status %d", e.name, code)
	}
	e.carl.waitText("carl's results, "+e.name+" forfeited", "Results", "left: forfeit")
	e.carl.send("q")
	e.carl.wait()
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
