package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// sameGame reports whether two states show the same game.
func sameGame(a, b state) bool {
	return reflect.DeepEqual(a.Board, b.Board) && a.Score == b.Score && a.Moves == b.Moves
}

// playSome plays up to n moves in turn, checking each reply, and returns
// the last state.
func playSome(t *testing.T, b *botSession, first state, n int) state {
	t.Helper()
	return play(t, b, first, n, func(i int) (engine.Direction, string) {
		d := engine.Directions()[i%4]
		return d, d.String()
	})
}

func TestBotProtocolErrors(t *testing.T) {
	ts := startServer(t)
	b := startBot(t, ts.dial(t, "p", newKey(t)), "")
	first := b.mustRead()
	for _, line := range []string{
		"", "jump", "up up", `{"move":"up"}`, "\x1b[31mup", strings.Repeat("u", 65),
		strings.Repeat("x", 10000), "\xff\xfe",
	} {
		b.send(line)
		e := b.mustRead()
		if e.Error == nil || *e.Error == "" {
			t.Fatalf("line %q: got %+v, want an error line", line, e)
		}
		if strings.Contains(*e.Error, "\x1b") {
			t.Fatalf("error echoes raw input: %q", *e.Error)
		}
		st := b.mustRead()
		if st.Error != nil || !sameGame(st, first) || st.Moved || st.Gained != 0 {
			t.Fatalf("line %q: state after error %+v, want unchanged %+v", line, st, first)
		}
	}
	// Exactly 64 bytes is allowed; surrounding blanks and CRLF are fine.
	b.send("up" + strings.Repeat(" ", 62))
	if st := b.mustRead(); st.Error != nil {
		t.Fatalf("64-byte line refused: %q", *st.Error)
	}
	b.send(" left\r")
	if st := b.mustRead(); st.Error != nil {
		t.Fatalf("CRLF line refused: %q", *st.Error)
	}
	b.finish()
}

// TestBotMoveRate: a bot that sends moves faster than --bot-rate gets an
// error line (and the unchanged state) for each move over it, not
// played; at most the burst and the rate's worth of the time are played.
// In a race too.
func TestBotMoveRate(t *testing.T) {
	const botRate, flood = 20, 60
	for _, args := range []string{"", "--race"} {
		t.Run("bot "+args, func(t *testing.T) {
			s := servertest.Start(t, t.TempDir(), "127.0.0.1:0",
				servertest.Races(race.WithTimes(50*time.Millisecond, 50*time.Millisecond, time.Minute)),
				func(c *server.Config) { c.Limits.BotRate = botRate })
			ts := &testServer{srv: s.Srv, store: s.Store, addr: s.Addr, dir: s.Dir, logs: s.Logs}
			b := startBot(t, ts.dial(t, "flood", newKey(t)), args)
			if args != "" {
				startBot(t, ts.dial(t, "idle", newKey(t)), args) // a race needs two
			}
			b.mustRead()
			start := time.Now()
			go func() {
				for i := range flood {
					if _, err := io.WriteString(b.in, engine.Directions()[i%4].String()+"\n"); err != nil {
						return
					}
				}
			}()
			played, refused := 0, 0
			var last state
			var told string
			for range flood {
				st := b.mustRead()
				if st.Error != nil {
					refused++
					told = *st.Error
					b.mustRead() // the unchanged state
					continue
				}
				played++
				last = st
				if st.Over {
					break // a game can end within the flood (seeds are random); its session ends with it
				}
			}
			elapsed := time.Since(start)
			b.in.Close()
			t.Logf("%d moves sent at once: %d played, %d refused in %v; refused with %q", flood, played, refused, elapsed.Round(time.Millisecond), told)
			if most := botRate + int(botRate*elapsed.Seconds()) + 1; played > most {
				t.Fatalf("%d moves played in %v, want at most %d (burst %d, %d a second)", played, elapsed, most, botRate, botRate)
			}
			if refused == 0 || !strings.Contains(told, "too many moves") {
				t.Fatalf("%d moves refused, told %q; want error lines saying why", refused, told)
			}
			// After a refusal the next line waits for a move to be due:
			// the error lines too come at most at the rate.
			if most := int(botRate*elapsed.Seconds()) + 1; refused > most {
				t.Fatalf("%d moves refused in %v, want at most %d", refused, elapsed, most)
			}
			if last.Moves > played {
				t.Fatalf("the game has %d moves, %d were played", last.Moves, played)
			}
		})
	}
}

func TestBotResumeAndNew(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	c := ts.dial(t, "p", key)

	b := startBot(t, c, "--size 5")
	last := playSome(t, b, b.mustRead(), 12)
	b.finish()

	// Same key, new connection: the game is waiting as it was left.
	b = startBot(t, ts.dial(t, "p", key), "--size 5")
	resumed := b.mustRead()
	if !sameGame(resumed, last) || resumed.Moved {
		t.Fatalf("resumed %+v, want %+v", resumed, last)
	}
	last = playSome(t, b, resumed, 3)
	b.finish()

	// Another size is another game.
	b = startBot(t, c, "--size 4")
	if st := b.mustRead(); st.Moves != 0 || len(st.Board) != 4 {
		t.Fatalf("4×4 game %+v, want a new one", st)
	}
	b.finish()

	// --new starts afresh; the old game is ended and still counts.
	b = startBot(t, c, "--size 5 --new")
	if st := b.mustRead(); st.Moves != 0 || st.Score != 0 || len(st.Board) != 5 {
		t.Fatalf("--new gave %+v", st)
	}
	b.finish()
	var rows []struct {
		Score int        `json:"score"`
		Moves int        `json:"moves"`
		Ended *time.Time `json:"ended"`
	}
	out := run(t, c, "scores --bots --size 5 --json", "")
	if err := json.Unmarshal([]byte(out.stdout), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Moves != last.Moves || rows[0].Score != last.Score || rows[0].Ended == nil {
		t.Fatalf("scores after --new: %+v, want the ended game with %d moves", rows, last.Moves)
	}
}

func TestBotFlags(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "p", newKey(t))
	for _, cmd := range []string{"bot --size 2", "bot --size 9", "bot --size x", "bot --bogus", "bot extra"} {
		if r := run(t, c, cmd, ""); r.code != 2 || r.stderr == "" || r.stdout != "" {
			t.Errorf("%s: %+v, want exit 2 with a message on stderr", cmd, r)
		}
	}
	// Help asked for is the answer: on stdout, status 0, nothing on
	// stderr; and no flag's usage is shown as its argument ("-bots bot").
	for _, tt := range []struct{ cmd, want string }{
		{"bot --help", "-new"}, {"scores --help", "-bots\n"}, {"scores -h", "-json"}, {"help --help", "usage: help"},
	} {
		if r := run(t, c, tt.cmd, ""); r.code != 0 || !strings.Contains(r.stdout, tt.want) || r.stderr != "" {
			t.Errorf("%s: %+v, want exit 0 and %q on stdout, nothing on stderr", tt.cmd, r, tt.want)
		}
	}
}

// TestCommandLineMistakes: a malformed command line gets one line saying
// what is wrong, named by its command and its flag as --name, and the
// usage line under it; not the flag package's bare message followed by
// every flag's help.
func TestCommandLineMistakes(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "p", newKey(t))
	for _, tc := range []struct{ cmd, first string }{
		{"scores --bogus", "scores: unknown flag --bogus"},
		{"scores --size=abc", `scores: invalid value "abc" for --size: parse error`},
		{"scores extra", `scores: unexpected argument "extra"`},
		{"bot --race --room", "bot: flag needs an argument: --room"},
		{"tv extra", `tv: unexpected argument "extra"`},
		{"history --x", "history: unknown flag --x"},
		{"export", "export: want one game id"},
		{"verify --x 1", "verify: unknown flag --x"},
		{"watch a b", "watch: want one argument: a player's name (as the leaderboard shows it), #tag, or game id"},
		{"replay --x", "replay: unknown flag --x"},
	} {
		r := run(t, c, tc.cmd, "")
		name, _, _ := strings.Cut(tc.cmd, " ")
		// The usage may take more than one line: it is wrapped to 80
		// columns.
		first, usage, _ := strings.Cut(strings.TrimSuffix(r.stderr, "\n"), "\n")
		if r.code != wire.ExitUsage || r.stdout != "" || first != tc.first || !strings.HasPrefix(usage, "usage: "+name) || strings.Contains(usage, "\n\n") {
			t.Errorf("%s: status %d, stdout %q, stderr %q; want status %d and stderr %q then its usage line",
				tc.cmd, r.code, r.stdout, r.stderr, wire.ExitUsage, tc.first)
		}
	}
	// A command without arguments has no blank after its name, in its
	// usage as in help.
	if r := run(t, c, "history --help", ""); r.stdout != "usage: history\n" {
		t.Errorf("history --help: %q, want %q", r.stdout, "usage: history\n")
	}
	if r := run(t, c, "help", ""); strings.Contains(r.stdout, " \n") {
		t.Errorf("help has a line ending in a blank:\n%s", r.stdout)
	}
}

func TestScores(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	// Two players with a game each; one finished, one in progress.
	for i, name := range []string{"ann", "bob"} {
		p, err := ts.store.UpsertPlayer(ctx, "SHA256:test"+name, "ssh-ed25519", name)
		if err != nil {
			t.Fatal(err)
		}
		g, err := ts.store.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []engine.Direction{engine.Up, engine.Left, engine.Down, engine.Right, engine.Up, engine.Left}[:3+i*3] {
			if g.Engine.Move(d).Moved {
				if err := ts.store.AppendMove(ctx, g.ID, g.Engine.Moves()-1, d, store.StateOf(g.Engine)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if name == "ann" {
			if err := ts.store.EndGame(ctx, g.ID, store.StateOf(g.Engine)); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, err := ts.store.Leaderboard(ctx, 4, store.KindHuman, 10)
	if err != nil || len(want) != 2 {
		t.Fatalf("leaderboard: %v %v", want, err)
	}
	c := ts.dial(t, "viewer", newKey(t))

	r := run(t, c, "scores --json", "")
	if r.code != 0 {
		t.Fatalf("scores --json: %+v", r)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("scores --json: %v: %q", err, r.stdout)
	}
	for _, field := range []string{"rank", "name", "score", "max_tile", "moves", "ended", "won", "game_id"} {
		if _, ok := rows[0][field]; !ok {
			t.Errorf("scores --json: no field %q in %v", field, rows[0])
		}
	}
	for i, e := range want {
		got := rows[i]
		if got["name"] != e.Name || int(got["score"].(float64)) != e.Score || int(got["rank"].(float64)) != e.Rank ||
			int(got["moves"].(float64)) != e.Moves || int(got["max_tile"].(float64)) != e.MaxTile || (got["ended"] == nil) != (e.Ended == nil) {
			t.Errorf("row %d: %v, want %+v", i, got, e)
		}
	}

	r = run(t, c, "scores", "")
	if r.code != 0 || strings.Contains(r.stdout, "\x1b") {
		t.Fatalf("scores without a PTY: %+v (must be plain)", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "RANK") {
		t.Fatalf("scores table:\n%s", r.stdout)
	}
	for i, e := range want {
		f := strings.Fields(lines[2+i])
		if f[0] != strconvI(e.Rank) || f[1] != e.Name || f[2] != strconvI(e.Score) {
			t.Errorf("table row %q, want %+v", lines[2+i], e)
		}
	}
	if !strings.Contains(r.stdout, "playing") {
		t.Errorf("the game in progress should say playing:\n%s", r.stdout)
	}

	if r := run(t, c, "scores --limit 1 --json", ""); strings.Count(r.stdout, `"rank"`) != 1 {
		t.Errorf("--limit 1: %q", r.stdout)
	}
	// Pages: --offset goes on where the page before ended.
	for offset, e := range want {
		r := run(t, c, fmt.Sprintf("scores --limit 1 --offset %d --json", offset), "")
		var page []wire.ScoreEntry
		if err := json.Unmarshal([]byte(r.stdout), &page); err != nil || len(page) != 1 || page[0].Rank != e.Rank || page[0].Name != e.Name {
			t.Errorf("--offset %d: %q (%v), want rank %d %s", offset, r.stdout, err, e.Rank, e.Name)
		}
	}
	if r := run(t, c, fmt.Sprintf("scores --offset %d --json", len(want)), ""); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("--offset past the end: %q", r.stdout)
	}
	// The table past the end does not say the board has no games.
	if r := run(t, c, fmt.Sprintf("scores --offset %d", len(want)), ""); !strings.Contains(r.stdout, fmt.Sprintf("(no one ranked below #%d)", len(want))) || strings.Contains(r.stdout, "no games yet") {
		t.Errorf("--offset past the end, as a table: %q", r.stdout)
	}
	if r := run(t, c, "scores --bots --json", ""); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("bot leaderboard should be empty, got %q", r.stdout)
	}
	if r := run(t, c, "scores --size 7", ""); !strings.Contains(r.stdout, "no games yet") {
		t.Errorf("empty leaderboard: %q", r.stdout)
	}
	for _, bad := range []string{"scores --size 1", "scores --limit 0", "scores --limit 5000", "scores what", "scores --offset -1", "scores --daily --offset 5"} {
		if r := run(t, c, bad, ""); r.code != 2 || r.stderr == "" {
			t.Errorf("%s: %+v, want exit 2", bad, r)
		}
	}

	// With a PTY the table may be styled.
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm-256color", 40, 100, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	out, err := s.Output("scores")
	if err != nil || !strings.Contains(string(out), "ann") || !strings.Contains(string(out), "\x1b[1m") {
		t.Fatalf("scores with a PTY: %v %q", err, out)
	}
}

func strconvI(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestHostileNames(t *testing.T) {
	ts := startServer(t)
	hostile := []string{
		"\x1b[2J\x1b[31mevil", "\x1b]52;c;aGk=\x07clip", "ok\x9b31mc1", "\u202eesrever", "bell\x07\x07", "\r\nfake row",
		"<3 & co",
	}
	for _, name := range hostile {
		c := ts.dial(t, name, newKey(t))
		b := startBot(t, c, "")
		// Until a move changes the board: a game without one is on no
		// leaderboard, and its row would be missing below.
		st := playSome(t, b, b.mustRead(), 2)
		for i := 2; st.Moves == 0; i++ {
			st = play(t, b, st, 1, func(int) (engine.Direction, string) {
				d := engine.Directions()[i%4]
				return d, d.String()
			})
		}
		b.finish()
	}
	c := ts.dial(t, "viewer", newKey(t))
	for _, cmd := range []string{"scores --bots", "scores --bots --json"} {
		r := run(t, c, cmd, "")
		if r.code != 0 {
			t.Fatalf("%s: %+v", cmd, r)
		}
		if i := strings.IndexFunc(r.stdout, func(r rune) bool {
			return r < 0x20 && r != '\n' || r >= 0x7f && r < 0xa0 || r == '\u202e'
		}); i >= 0 {
			t.Fatalf("%s: control character %q in output %q", cmd, r.stdout[i], r.stdout)
		}
		if strings.Count(r.stdout, "\n") != map[bool]int{true: 1, false: 2 + len(hostile)}[strings.HasSuffix(cmd, "json")] {
			t.Fatalf("%s: a name broke the layout:\n%s", cmd, r.stdout)
		}
	}
	out := run(t, c, "scores --bots --json", "").stdout
	if !strings.Contains(out, `"<3 & co"`) {
		t.Errorf("JSON escapes harmless characters: %s", out)
	}
	var rows []struct{ Name string }
	json.Unmarshal([]byte(out), &rows)
	for _, r := range rows {
		if strings.ContainsAny(r.Name, "\x1b\x07\u009b\r\n\u202e") {
			t.Fatalf("JSON name %q carries control characters", r.Name)
		}
	}
}

func TestGuest(t *testing.T) {
	ts := startServer(t)
	c := ts.dialGuest(t)
	b := startBot(t, c, "--size 3")
	last := playSome(t, b, b.mustRead(), 5)
	b.finish()
	if n := strings.Count(strings.ToLower(b.stderr.String()), "guest"); n != 1 {
		t.Fatalf("guest told %d times: %q", n, b.stderr.String())
	}
	if !strings.Contains(b.stderr.String(), "SSH key") {
		t.Fatalf("guest not told how to get on the leaderboard: %q", b.stderr.String())
	}
	if last.Moves == 0 {
		t.Fatal("guest could not play")
	}
	// Nothing recorded: not on the leaderboard, and a new session starts afresh.
	if r := run(t, c, "scores --bots --size 3 --json", ""); strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("guest game recorded: %q", r.stdout)
	}
	b = startBot(t, c, "--size 3")
	if st := b.mustRead(); st.Moves != 0 {
		t.Fatalf("guest game resumed: %+v", st)
	}
	b.finish()
	// No password authentication at all.
	_, err := gossh.Dial("tcp", ts.addr, &gossh.ClientConfig{
		User: "p", Auth: []gossh.AuthMethod{gossh.Password("secret")},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second,
	})
	if err == nil {
		t.Fatal("password authentication accepted")
	}
}

// TestIdentityIsTheKey: the fingerprint, not the user name, names the player.
func TestIdentityIsTheKey(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	b := startBot(t, ts.dial(t, "first", key), "")
	last := playSome(t, b, b.mustRead(), 3)
	b.finish()
	b = startBot(t, ts.dial(t, "another-name", key), "")
	if st := b.mustRead(); !sameGame(st, last) {
		t.Fatalf("same key, other name: %+v, want %+v", st, last)
	}
	b.finish()
	b = startBot(t, ts.dial(t, "first", newKey(t)), "")
	if st := b.mustRead(); st.Moves != 0 {
		t.Fatalf("other key, same name: got the first key's game %+v", st)
	}
	b.finish()
}

func TestTakeover(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	old := startBot(t, ts.dial(t, "p", key), "")
	oldLast := playSome(t, old, old.mustRead(), 4)

	newer := startBot(t, ts.dial(t, "p", key), "")
	first := newer.mustRead()
	if !sameGame(first, oldLast) {
		t.Fatalf("newer session got %+v, want %+v", first, oldLast)
	}
	if code := old.wait(); code != 3 {
		t.Fatalf("old session exit %d, want 3", code)
	}
	if !strings.Contains(old.stderr.String(), "newer session") {
		t.Fatalf("old session not told: %q", old.stderr.String())
	}
	playSome(t, newer, first, 2)
	newer.finish()
}

// TestTakeoverUnderLoad: the old session keeps sending moves while a newer
// one takes over. Every move the old one was answered for is in the game
// the newer one gets, and nothing else.
func TestTakeoverUnderLoad(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	for round := range 5 {
		old := startBot(t, ts.dial(t, "p", key), "--size 6")
		prev := old.mustRead()
		answered := make(chan state, 1)
		go func() {
			// Pipeline moves without waiting, read replies separately: as
			// many as a session holds unread (more would end it, status
			// 13), far more than it plays before the takeover.
			for i, sent := 0, 0; ; i++ {
				line := engine.Directions()[i%4].String() + "\n"
				if sent += len(line); sent > session.MaxUnreadInput {
					return
				}
				if _, err := old.in.Write([]byte(line)); err != nil {
					return
				}
			}
		}()
		go func() {
			last := prev
			for {
				line, err := old.out.ReadBytes('\n')
				if err != nil {
					answered <- last
					return
				}
				var st state
				if json.Unmarshal(line, &st) == nil && st.Error == nil {
					last = st
				}
			}
		}()
		time.Sleep(time.Duration(5+round*10) * time.Millisecond)
		newer := startBot(t, ts.dial(t, "p", key), "--size 6")
		first := newer.mustRead()
		if code := old.wait(); code != 3 {
			t.Fatalf("round %d: old exit %d, want 3", round, code)
		}
		last := <-answered
		if !sameGame(first, last) {
			t.Fatalf("round %d: newer session got %d moves, old session was answered for %d", round, first.Moves, last.Moves)
		}
		newer.finish()
	}
}

func TestUnknownCommandAndNoPTY(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "p", newKey(t))
	for _, cmd := range []string{"rm -rf /", "scoresx", "\x1b[31m", "'"} {
		r := run(t, c, cmd, "")
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "help") {
			t.Errorf("%q: %+v, want exit 2 and a hint on stderr", cmd, r)
		}
		if strings.Contains(r.stderr, "\x1b") {
			t.Errorf("%q: stderr echoes an escape: %q", cmd, r.stderr)
		}
	}
	r := run(t, c, "help", "")
	for _, word := range []string{"scores", "bot", "help"} {
		if r.code != 0 || !strings.Contains(r.stdout, word) {
			t.Errorf("help: %+v lacks %q", r, word)
		}
	}

	// Neither a PTY nor a command: one line saying to use ssh -t, non-zero exit.
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	s.Stderr = &stderr
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, s.Wait()); code == 0 || !strings.Contains(stderr.String(), "ssh -t") || strings.Count(stderr.String(), "\n") != 1 {
		t.Fatalf("shell without PTY: exit %d, stderr %q", code, stderr.String())
	}
}

func TestPTYGetsTheTUI(t *testing.T) {
	var gotPlayer game.Player
	seen := make(chan struct{}, 1)
	ts := startServer(t, func(c *server.Config) {
		c.TUI = func(sess ssh.Session, env server.TUIEnv) tea.Model {
			gotPlayer = env.Seat.Player()
			seen <- struct{}{}
			return quitOnKey{}
		}
	})
	key := newKey(t)
	s, out, send := ptySession(t, ts.dial(t, "tui-user", key))
	<-seen
	waitFor(t, "the TUI to draw", func() bool { return strings.Contains(out.String(), "fake tui") })
	if gotPlayer.Guest || gotPlayer.Name != "tui-user" || gotPlayer.Fingerprint != gossh.FingerprintSHA256(key.PublicKey()) {
		t.Fatalf("TUI got player %+v", gotPlayer)
	}
	send("q")
	if code := exitCode(t, s.Wait()); code != 0 {
		t.Fatalf("TUI exit %d", code)
	}
}

// quitOnKey is a stand-in TUI that quits on any key and reports the
// server's notices on told, if set.
type quitOnKey struct{ told chan<- tea.Msg }

func (quitOnKey) Init() tea.Cmd { return nil }
func (m quitOnKey) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case tea.KeyPressMsg:
		return m, tea.Quit
	case event.TakenOverMsg, event.ShutdownMsg:
		if m.told != nil {
			m.told <- msg
		}
	}
	return m, nil
}
func (quitOnKey) View() tea.View { return tea.NewView("fake tui") }

func TestGameScreenGuestAndRandomBytes(t *testing.T) {
	ts := startServer(t)
	rng := rand.New(rand.NewPCG(7, 7))
	junk := make([]byte, 4096)
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	junk = bytes.ReplaceAll(junk, []byte("q"), nil) // keep the game screen running
	junk = bytes.ReplaceAll(junk, []byte{3}, nil)   // no ctrl+c either
	junk = bytes.ReplaceAll(junk, []byte{0x1b}, nil)

	// Guest on a PTY: the game screen with the guest hint.
	s, out, send := ptySession(t, ts.dialGuest(t))
	waitFor(t, "the game screen", func() bool { return strings.Contains(out.String(), "Moves") })
	send(string(junk))
	// The junk used up the screen's keys for a second (Config.KeyRate):
	// "q" gets through once they are back.
	if code := quitScreen(t, s, send); code != 0 {
		t.Fatalf("game screen exit %d", code)
	}

	// Random bytes into a bot session: every line is answered, nothing breaks.
	c := ts.dial(t, "p", newKey(t))
	b := startBot(t, c, "")
	b.mustRead()
	raw := make([]byte, 20000)
	for i := range raw {
		raw[i] = byte(rng.Uint32())
	}
	go func() { b.in.Write(raw); b.in.Close() }()
	for {
		if _, ok := b.read(); !ok {
			break
		}
	}
	if code := b.wait(); code != 0 {
		t.Fatalf("bot after random bytes: exit %d, stderr %q", code, b.stderr.String())
	}
	// The server is fine. (Not with the junk as help's input: help does
	// not read it, and ends while the client may still be sending it, and
	// the client then reports the closed channel, "session: EOF".)
	if r := run(t, c, "help", ""); r.code != 0 {
		t.Fatalf("help after random bytes: %+v", r)
	}
}

func TestPanicEndsOnlyThatSession(t *testing.T) {
	ts := startServer(t, func(c *server.Config) {
		c.TUI = func(ssh.Session, server.TUIEnv) tea.Model { panic("boom") }
	})
	c := ts.dial(t, "p", newKey(t))
	s, _, _ := ptySession(t, c)
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("panicking session did not end")
	}
	if r := run(t, ts.dial(t, "q", newKey(t)), "help", ""); r.code != 0 {
		t.Fatalf("server after a panic: %+v", r)
	}
	if !strings.Contains(ts.logs.String(), "boom") {
		t.Fatal("panic not logged")
	}
}

func TestShutdownKeepsGames(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	c := ts.dial(t, "p", key)
	b := startBot(t, c, "")
	last := playSome(t, b, b.mustRead(), 6)
	guestTUI, guestOut, _ := ptySession(t, ts.dialGuest(t))
	waitFor(t, "the game screen", func() bool { return strings.Contains(guestOut.String(), "Moves") })

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	start := time.Now()
	if err := ts.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("shutdown took %v", took)
	}
	if code := b.wait(); code != 4 || !strings.Contains(b.stderr.String(), "restarting") || !strings.Contains(b.stderr.String(), "saved") {
		t.Fatalf("bot at shutdown: exit %d, stderr %q", code, b.stderr.String())
	}
	guestTUI.Wait()
	// The game screen's last line, after it left the alternate screen,
	// where the message stays.
	screen := guestOut.String()
	leave := strings.LastIndex(screen, "\x1b[?1049l")
	if leave < 0 || !strings.Contains(screen[leave:], "restarting") {
		t.Fatalf("TUI not told about the restart: %q", screen)
	}
	// The game is in the store as the player last saw it.
	p, err := ts.store.UpsertPlayer(context.Background(), gossh.FingerprintSHA256(key.PublicKey()), "ssh-ed25519", "p")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ts.store.LoadOrCreateGame(context.Background(), p.ID, 4, store.KindBot)
	if err != nil {
		t.Fatal(err)
	}
	if g.Engine.Moves() != last.Moves || g.Engine.Score() != last.Score || !reflect.DeepEqual(toBoard(t, last.Board), g.Engine.Board()) {
		t.Fatalf("stored game: %d moves, score %d; player saw %d, %d", g.Engine.Moves(), g.Engine.Score(), last.Moves, last.Score)
	}
	// No new connections.
	if _, err := gossh.Dial("tcp", ts.addr, &gossh.ClientConfig{
		User: "p", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 2 * time.Second,
	}); err == nil {
		t.Fatal("connection accepted after shutdown")
	}
}

func TestIdleTimeout(t *testing.T) {
	// Generous against a loaded CI machine: input every 100 ms must never
	// be taken for 1 s of silence.
	ts := startServer(t, func(c *server.Config) { c.Limits.IdleTimeout = time.Second })
	key := newKey(t)
	b := startBot(t, ts.dial(t, "p", key), "")
	last := b.mustRead()
	// A player who keeps sending is never cut off, however long it takes.
	for i := range 25 {
		time.Sleep(100 * time.Millisecond)
		last = play(t, b, last, 1, func(int) (engine.Direction, string) {
			d := engine.Directions()[i%4]
			return d, d.String()
		})
	}
	var code int
	select {
	case err := <-b.done: // the session was ended for idling
		code = exitCode(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("idle connection was not closed")
	}
	// Ended through the session: a line on stderr and its own status,
	// not a connection closed under it (255 in OpenSSH).
	if code != wire.ExitInactive || !strings.Contains(b.stderr.String(), "No input for 1 second") {
		t.Fatalf("bot after the idle timeout: exit %d, stderr %q; want wire.ExitInactive (9) and why", code, b.stderr.String())
	}
	if !strings.Contains(ts.logs.String(), "idle timeout") {
		t.Fatal("idle timeout not logged")
	}
	b = startBot(t, ts.dial(t, "p", key), "")
	if st := b.mustRead(); !sameGame(st, last) {
		t.Fatalf("after idle timeout: %+v, want %+v", st, last)
	}
	b.finish()
}

// seamTUI is a stand-in TUI that opens the player's 4×4 game through the
// seam and hands it to the test, which plays it directly.
type seamTUI struct {
	plays   chan<- *game.Play
	notices chan<- event.TakenOverMsg
	seat    *game.Seat
}

func (m seamTUI) Init() tea.Cmd {
	return func() tea.Msg {
		p, err := m.seat.Open(context.Background(), 4, store.KindHuman, false)
		if err != nil {
			panic(err)
		}
		m.plays <- p
		return nil
	}
}

func (m seamTUI) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case event.TakenOverMsg:
		m.notices <- msg
		return m, tea.Quit
	case tea.KeyPressMsg:
		return m, tea.Quit
	}
	return m, nil
}

func (seamTUI) View() tea.View { return tea.NewView("seam") }

// TestTUISeamTakeoverAndAssisted drives games through the TUI's seam: a
// second session of the same key takes the game over with every move the
// first one made, the first is told and ends, and marking the game
// assisted moves it off the human leaderboard.
func TestTUISeamTakeoverAndAssisted(t *testing.T) {
	plays := make(chan *game.Play, 2)
	notices := make(chan event.TakenOverMsg, 2)
	ts := startServer(t, func(c *server.Config) {
		c.TUI = func(_ ssh.Session, env server.TUIEnv) tea.Model {
			return seamTUI{plays: plays, notices: notices, seat: env.Seat}
		}
	})
	key := newKey(t)
	ctx := context.Background()
	sessA, _, _ := ptySession(t, ts.dial(t, "p", key))
	a := <-plays
	for i := range 8 {
		if _, err := a.Move(ctx, engine.Directions()[i%4]); err != nil {
			t.Fatal(err)
		}
	}
	sessB, _, sendB := ptySession(t, ts.dial(t, "p", key))
	b := <-plays
	if b.Moves() != a.Moves() || b.Score() != a.Score() || b.Board() != a.Board() || b.ID() != a.ID() {
		t.Fatalf("newer session: %d moves, score %d; older had %d, %d", b.Moves(), b.Score(), a.Moves(), a.Score())
	}
	if n := <-notices; n != (event.TakenOverMsg{}) {
		t.Fatalf("older session got %+v", n)
	}
	if _, err := a.Move(ctx, engine.Up); !errors.Is(err, game.ErrTakenOver) {
		t.Fatalf("older session could still move: %v", err)
	}
	sessA.Wait()

	for i := 0; b.Moves() == a.Moves(); i++ {
		if _, err := b.Move(ctx, engine.Directions()[i%4]); err != nil {
			t.Fatal(err)
		}
	}
	human, _ := ts.store.Leaderboard(ctx, 4, store.KindHuman, 10)
	if len(human) != 1 || human[0].GameID != b.ID() {
		t.Fatalf("human leaderboard %+v", human)
	}
	if err := b.MarkAssisted(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Move(ctx, engine.Left); err != nil {
		t.Fatal(err)
	}
	human, _ = ts.store.Leaderboard(ctx, 4, store.KindHuman, 10)
	assisted, _ := ts.store.Leaderboard(ctx, 4, store.KindAssisted, 10)
	if len(human) != 0 || len(assisted) != 1 || assisted[0].Moves != b.Moves() {
		t.Fatalf("after MarkAssisted: human %+v, assisted %+v", human, assisted)
	}
	sendB("q")
	sessB.Wait()
}

// TestReopenInSameSession: a session that opens a game it already holds
// (a new game, say) supersedes its own Play quietly, without ending itself.
func TestReopenInSameSession(t *testing.T) {
	envs := make(chan server.TUIEnv, 1)
	told := make(chan tea.Msg, 1)
	ts := startServer(t, func(c *server.Config) {
		c.TUI = func(_ ssh.Session, env server.TUIEnv) tea.Model {
			envs <- env
			return quitOnKey{told: told}
		}
	})
	ctx := context.Background()
	sess, out, send := ptySession(t, ts.dial(t, "p", newKey(t)))
	seat := (<-envs).Seat
	first, err := seat.Open(ctx, 3, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	first.Move(ctx, engine.Up)
	first.Move(ctx, engine.Left)
	second, err := seat.Open(ctx, 3, store.KindHuman, true)
	if err != nil {
		t.Fatal(err)
	}
	if second.ID() == first.ID() || second.Moves() != 0 {
		t.Fatalf("fresh game %d with %d moves; first was %d", second.ID(), second.Moves(), first.ID())
	}
	if _, err := first.Move(ctx, engine.Down); !errors.Is(err, game.ErrTakenOver) {
		t.Fatalf("superseded Play still moves: %v", err)
	}
	if _, err := second.Move(ctx, engine.Down); err != nil {
		t.Fatal(err)
	}
	select {
	case msg := <-told:
		t.Fatalf("the session was told %+v", msg)
	case <-time.After(200 * time.Millisecond):
	}
	send("x")
	if code := exitCode(t, sess.Wait()); code != 0 {
		t.Fatalf("session ended with %d, output %q", code, out.String())
	}
}

// TestConcurrentOpens: sessions of one key opening the same game at once
// end with exactly one writer; every other session is told and exits 3.
func TestConcurrentOpens(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	const n = 6
	clients := make([]*gossh.Client, n)
	for i := range clients {
		clients[i] = ts.dial(t, "p", key)
	}
	bots := make([]*botSession, n)
	firsts := make([]state, n)
	start := make(chan struct{})
	done := make(chan int, n)
	for i := range bots {
		go func() {
			<-start
			bots[i] = startBot(t, clients[i], "--size 5")
			done <- i
		}()
	}
	close(start)
	for range n {
		i := <-done
		firsts[i] = bots[i].mustRead()
	}
	alive := 0
	for i, b := range bots {
		d := movingDirection(t, firsts[i])
		// A session already told to end has closed its input.
		_, err := b.in.Write([]byte(d.String() + "\n"))
		if st, ok := b.read(); ok && err == nil {
			checkMove(t, firsts[i], st, d)
			alive++
			b.finish()
			continue
		}
		if code := b.wait(); code != 3 {
			t.Fatalf("session %d: exit %d, want 3; stderr %q", i, code, b.stderr.String())
		}
	}
	if alive != 1 {
		t.Fatalf("%d sessions could move, want exactly 1", alive)
	}
}

// TestGameScreenTakeover: with the real game screen, a second terminal of
// the same key that asks for the first's size (`play --size 4`) takes the
// game over with every move made in the first, which says so and ends.
func TestGameScreenTakeover(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	ctx := context.Background()
	sessA, outA, sendA := ptySession(t, ts.dial(t, "p", key))
	waitFor(t, "the game screen", func() bool { return strings.Contains(outA.String(), "p") && len(outA.String()) > 200 })
	p, err := ts.store.UpsertPlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ssh-ed25519", "p")
	if err != nil {
		t.Fatal(err)
	}
	storedMoves := func() int {
		games, err := ts.store.PlayerGames(ctx, p.ID, 10)
		if err != nil || len(games) == 0 {
			return -1
		}
		return games[0].Moves
	}
	arrows := []string{"\x1b[A", "\x1b[C", "\x1b[B", "\x1b[D"}
	for i := range 8 {
		sendA(arrows[i%4])
	}
	waitFor(t, "moves to be stored", func() bool { return storedMoves() >= 3 })
	before := storedMoves()

	sessB, outB, sendB := ptyCommand(t, ts.dial(t, "p", key), 100, 30, "play --size 4")
	done := make(chan int, 1)
	go func() { done <- exitCode(t, sessA.Wait()) }()
	select {
	case code := <-done:
		if code != 3 || !strings.Contains(outA.String(), "newer session") {
			t.Fatalf("older screen: exit %d, output %q", code, outA.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the older screen still runs 10 s after the takeover")
	}
	waitFor(t, "the newer screen", func() bool { return len(outB.String()) > 200 })
	if n := storedMoves(); n < before {
		t.Fatalf("moves went from %d to %d", before, n)
	}
	sendB("q")
	if code := exitCode(t, sessB.Wait()); code != 0 {
		t.Fatalf("newer screen exit %d", code)
	}
}

// TestOverGameLeftUnended: a game whose last move was stored but whose end
// was not (the server stopped in between) is ended when next opened, and
// the player gets a new game.
func TestOverGameLeftUnended(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	key := newKey(t)
	p, err := ts.store.UpsertPlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ssh-ed25519", "p")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ts.store.LoadOrCreateGame(ctx, p.ID, 3, store.KindBot)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; !g.Engine.Over(); i++ {
		d := engine.Directions()[i%4]
		if g.Engine.Move(d).Moved {
			if err := ts.store.AppendMove(ctx, g.ID, g.Engine.Moves()-1, d, store.StateOf(g.Engine)); err != nil {
				t.Fatal(err)
			}
		}
	}
	b := startBot(t, ts.dial(t, "p", key), "--size 3")
	if st := b.mustRead(); st.Moves != 0 || st.Over {
		t.Fatalf("got %+v, want a new game", st)
	}
	b.finish()
	games, err := ts.store.PlayerGames(ctx, p.ID, 10)
	if err != nil || len(games) != 2 || games[1].ID != g.ID || games[1].EndedAt == nil || games[1].Moves != g.Engine.Moves() {
		t.Fatalf("games %+v, want the over game %d ended with %d moves", games, g.ID, g.Engine.Moves())
	}
}

// TestBotOverPTY: with `ssh -t` the terminal sends "\r" for Enter; the bot
// takes it as a line end.
func TestBotOverPTY(t *testing.T) {
	ts := startServer(t)
	s, err := ts.dial(t, "p", newKey(t)).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, _ := s.StdinPipe()
	out, _ := s.StdoutPipe()
	if err := s.Start("bot"); err != nil {
		t.Fatal(err)
	}
	b := &botSession{t: t, s: s, in: in, out: bufio.NewReader(out), stderr: &syncBuffer{}}
	first := b.mustRead()
	d := movingDirection(t, first)
	io.WriteString(in, d.String()+"\r")
	checkMove(t, first, b.mustRead(), d)
	in.Close()
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestShutdownWithStuckClient: a client that stops reading cannot hold the
// server past the shutdown deadline.
func TestShutdownWithStuckClient(t *testing.T) {
	if testing.Short() {
		t.Skip("fills an SSH window")
	}
	ts := startServer(t)
	b := startBot(t, ts.dial(t, "p", newKey(t)), "--size 8")
	b.mustRead()
	// Never read again, and send lines whose error replies, each with an
	// 8×8 board, come to far more than the SSH channel's window: the
	// server blocks writing them. The lines themselves stay well within
	// what a session may hold unread (more would end it: Flooded).
	stuckBefore := writersWaiting() // an earlier test's, still waiting
	lines := strings.Repeat("x\n", session.MaxUnreadInput/2/2)
	if _, err := io.WriteString(b.in, lines); err != nil {
		t.Fatal(err)
	}
	// Until the server is stuck: a write waiting for the window, and still
	// waiting half a second later (a write may wait a moment while the
	// window is not yet full). A second's sleep was not always enough under
	// -race on a busy machine, and then the session ended in time.
	var stuckSince time.Time
	waitFor(t, "the server stuck writing to the bot", func() bool {
		switch {
		case writersWaiting() <= stuckBefore:
			stuckSince = time.Time{}
		case stuckSince.IsZero():
			stuckSince = time.Now()
		}
		return !stuckSince.IsZero() && time.Since(stuckSince) > 500*time.Millisecond
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	err := ts.srv.Shutdown(ctx)
	if took := time.Since(start); took > 3*time.Second || err == nil {
		t.Fatalf("shutdown with a stuck client: %v after %v, want an error after about 2 s", err, took)
	}
}

// writersWaiting counts the process's goroutines waiting for room in an
// SSH channel's window: writes stuck on a client that reads nothing.
func writersWaiting() int {
	buf := make([]byte, 8<<20)
	return bytes.Count(buf[:runtime.Stack(buf, true)], []byte("ssh.(*window).reserve"))
}

// TestNoGoroutineLeaks: sessions of every kind, ended every way, leave no
// goroutines behind.
func TestNoGoroutineLeaks(t *testing.T) {
	ts := startServer(t)
	settle := func(limit int) int {
		var n int
		for range 100 {
			if n = runtime.NumGoroutine(); n <= limit {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		return n
	}
	round := func() {
		c := ts.dial(t, "p", newKey(t))
		b := startBot(t, c, "")
		playSome(t, b, b.mustRead(), 3)
		b.finish()
		b = startBot(t, c, "")
		b.mustRead()
		c.Close() // dropped mid-session
		c = ts.dial(t, "q", newKey(t))
		run(t, c, "scores", "")
		c.Close()
		c = ts.dialGuest(t)
		_, out, send := ptySession(t, c)
		waitFor(t, "the game screen", func() bool { return len(out.String()) > 100 })
		send("\x1b[A")
		c.Close() // dropped with the screen open
	}
	round() // warm up: pools and the writer start on first use
	time.Sleep(500 * time.Millisecond)
	base := runtime.NumGoroutine()
	for range 5 {
		round()
	}
	if n := settle(base + 2); n > base+2 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after the sessions, %d before:\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}

// TestHandshakeTimeout: a connection that never finishes the handshake is
// closed, and one that logs in in time is not.
func TestHandshakeTimeout(t *testing.T) {
	ts := startServer(t, func(c *server.Config) { c.Limits.LoginGrace = 500 * time.Millisecond })
	conn, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	if _, err := io.Copy(io.Discard, conn); err != nil { // the server's banner, then EOF when it hangs up
		t.Fatalf("stalled connection: %v after %v, want it closed by the server", err, time.Since(start))
	}
	if took := time.Since(start); took < 400*time.Millisecond || took > 5*time.Second {
		t.Fatalf("stalled connection closed after %v, want about 500 ms", took)
	}
	// A session that logs in and then takes its time is not cut off.
	c := ts.dial(t, "p", newKey(t))
	time.Sleep(time.Second)
	if r := run(t, c, "help", ""); r.code != 0 {
		t.Fatalf("help after the handshake deadline: %+v", r)
	}
}

// TestScreenCommandsHoldNoExtraGoroutine: a command that opens a screen
// (history, race) takes its session's requests over as the game screen
// does (see boundedSession.serve), so that it holds no more goroutines
// than the game screen; and its screen still follows the window.
func TestScreenCommandsHoldNoExtraGoroutine(t *testing.T) {
	ts := startServer(t)
	const n = 8 // a race room's most
	players := 0
	open := func(cmd string) (*gossh.Session, *syncBuffer) {
		t.Helper()
		players++
		s, out, _ := ptyCommand(t, ts.dial(t, "p"+strconv.Itoa(players), newKey(t)), 80, 24, cmd)
		waitFor(t, "the first frame of "+strconv.Quote(cmd), func() bool { return len(out.String()) > 100 })
		return s, out
	}
	settled := func() int {
		t.Helper()
		n, same := runtime.NumGoroutine(), 0
		for same < 5 { // unchanged for 250 ms: replies and first frames done
			time.Sleep(50 * time.Millisecond)
			if m := runtime.NumGoroutine(); m == n {
				same++
			} else {
				n, same = m, 0
			}
		}
		return n
	}
	open("") // warm up: the writer, pools
	perSession := func(cmd string) int {
		before := settled()
		for range n {
			open(cmd)
		}
		return (settled() - before + n/2) / n
	}
	game := perSession("")
	for _, cmd := range []string{"history", "race --room goroutines"} {
		if got := perSession(cmd); got > game {
			t.Errorf("%q holds %d goroutines a session, the game screen %d", cmd, got, game)
		}
	}
	s, out := open("history")
	before := len(out.String())
	if ok, err := s.SendRequest("window-change", true, gossh.Marshal(struct{ W, H, Wp, Hp uint32 }{100, 30, 0, 0})); !ok || err != nil {
		t.Fatalf("window-change on a history screen: %v, %v", ok, err)
	}
	waitFor(t, "the history screen redrawn at the new size", func() bool { return len(out.String()) > before+100 })
}
