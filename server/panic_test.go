package server_test

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
	gossh "golang.org/x/crypto/ssh"
)

// bombModel is a game screen with bugs on purpose: it panics in Update on
// "u", in View after "v", and in a command after "c".
type bombModel struct{ armed bool }

func (*bombModel) Init() tea.Cmd { return nil }

func (m *bombModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "u":
			explodeInUpdate()
		case "v":
			m.armed = true
		case "c":
			return m, func() tea.Msg { explodeInCommand(); return nil }
		case "q":
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m *bombModel) View() tea.View {
	if m.armed {
		explodeInView()
	}
	return tea.NewView("bomb screen")
}

//go:noinline
func explodeInUpdate() { panic("bug in Update") }

//go:noinline
func explodeInView() { panic("bug in View") }

//go:noinline
func explodeInCommand() { panic("bug in a command") }

const internalErrorLine = "ssh2048: internal error; your game is saved."

// TestGameScreenPanic is the regression test of issue 12: a game screen
// whose model panics in Update, View or a command, over real SSH, ends that
// session only, with one line to the player and status 1; the stack is
// logged once; another player's session and new connections go on.
func TestGameScreenPanic(t *testing.T) {
	for _, tt := range []struct{ key, where string }{
		{"u", "explodeInUpdate"}, {"v", "explodeInView"}, {"c", "explodeInCommand"},
	} {
		t.Run(tt.where, func(t *testing.T) {
			ts := startServer(t, func(c *server.Config) {
				c.TUI = func(ssh.Session, server.TUIEnv) tea.Model { return &bombModel{} }
			})
			other := startBot(t, ts.dial(t, "bystander", newKey(t)), "")
			other.mustRead()

			s, out, stderr, send := ptySessionWithStderr(t, ts.dial(t, "victim", newKey(t)))
			waitFor(t, "the screen", func() bool { return strings.Contains(out.String(), "bomb screen") })
			send(tt.key)
			if code := exitCode(t, s.Wait()); code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if got := strings.TrimSpace(stderr.String()); got != internalErrorLine {
				t.Errorf("the player was told %q, want %q", got, internalErrorLine)
			}
			if !strings.HasSuffix(out.String(), "\x1b[?1049l\x1b[?25h\x1b[23;0t") { // alternate screen, cursor, window title
				t.Errorf("the terminal was not given back: ends %q", tail(out.String(), 30))
			}
			logs := ts.logs.String()
			if n := strings.Count(logs, "msg=panic"); n != 1 {
				t.Errorf("%d panic lines logged, want 1:\n%s", n, logs)
			}
			if !strings.Contains(logs, tt.where) {
				t.Errorf("the logged stack does not show %s:\n%s", tt.where, logs)
			}

			// The bystander plays on, and the server takes new players.
			other.send("left")
			other.mustRead()
			other.finish()
			if r := run(t, ts.dial(t, "newcomer", newKey(t)), "help", ""); r.code != 0 {
				t.Fatalf("help after the panic: exit %d", r.code)
			}
		})
	}
}

// TestScreenSetupPanic: a panic while a game screen is set up, which
// runs on a goroutine of its own (session.OnFreshStack), ends that session as
// a panic of its handler does: status 1, one line, and the stack of
// where it went wrong logged once.
func TestScreenSetupPanic(t *testing.T) {
	ts := startServer(t, func(c *server.Config) {
		c.TUI = func(ssh.Session, server.TUIEnv) tea.Model { return explodeInSetup() }
	})
	s, _, stderr, _ := ptySessionWithStderr(t, ts.dial(t, "victim", newKey(t)))
	if code := exitCode(t, s.Wait()); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if got := strings.TrimSpace(stderr.String()); got != internalErrorLine {
		t.Errorf("the player was told %q, want %q", got, internalErrorLine)
	}
	logs := ts.logs.String()
	if n := strings.Count(logs, "msg=panic"); n != 1 || !strings.Contains(logs, "explodeInSetup") ||
		!strings.Contains(logs, "bug in the setup") {
		t.Errorf("want one panic logged with its value and the stack of explodeInSetup:\n%s", logs)
	}
	if r := run(t, ts.dial(t, "newcomer", newKey(t)), "help", ""); r.code != 0 {
		t.Fatalf("help after the panic: exit %d", r.code)
	}
}

//go:noinline
func explodeInSetup() tea.Model { panic("bug in the setup") }

// ptySessionWithStderr is ptySession with its stderr kept apart.
func ptySessionWithStderr(t *testing.T, c *gossh.Client) (*gossh.Session, *syncBuffer, *syncBuffer, func(string)) {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.RequestPty("xterm-256color", 30, 100, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, errOut := &syncBuffer{}, &syncBuffer{}
	s.Stdout, s.Stderr = out, errOut
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	return s, out, errOut, func(keys string) { in.Write([]byte(keys)) }
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

// panicStore is a store with a bug in its leaderboard and its moves.
type panicStore struct{ store.Store }

func (panicStore) Leaderboard(context.Context, int, store.Kind, int) ([]store.Entry, error) {
	panic("bug in Leaderboard")
}

func (panicStore) AppendMove(context.Context, int64, int, engine.Direction, store.MoveState) error {
	panic("bug in AppendMove")
}

// TestCommandPanic: a panic in an exec command (scores) or in the bot loop
// (a move) ends that session with the line and status 1; the server goes on.
func TestCommandPanic(t *testing.T) {
	store, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ts := startServer(t, func(c *server.Config) { c.Games = game.New(panicStore{store}, nil) })
	c := ts.dial(t, "p", newKey(t))
	r := run(t, c, "scores", "")
	if r.code != 1 || strings.TrimSpace(r.stderr) != internalErrorLine {
		t.Errorf("scores: exit %d, stderr %q", r.code, r.stderr)
	}
	r = run(t, c, "bot", "left\nright\nup\ndown\n")
	if r.code != 1 || !strings.HasSuffix(strings.TrimSpace(r.stderr), internalErrorLine) {
		t.Errorf("bot: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := strings.Count(ts.logs.String(), "msg=panic"); n != 2 {
		t.Errorf("%d panic lines logged, want 2", n)
	}
	if r := run(t, c, "help", ""); r.code != 0 {
		t.Fatalf("help on the same connection: exit %d", r.code)
	}
}

// brokenAI is an AI whose searches panic, as the pool reports them.
type brokenAI struct{}

func (brokenAI) Hint(context.Context, engine.Board) (engine.Direction, error) {
	return 0, &ai.PanicError{Value: "bug in the search", Stack: []byte("goroutine 7 [running]:\nai.searchWithABug()")}
}

func (b brokenAI) Autoplay(ctx context.Context, board engine.Board) (engine.Direction, error) {
	return b.Hint(ctx, board)
}

// TestAIPanic: an AI search that panicked (the pool survives it) ends the
// session that asked for the hint, with the search's stack in the log.
func TestAIPanic(t *testing.T) {
	ts := startServer(t, func(c *server.Config) { c.Hinter = brokenAI{} })
	s, out, stderr, send := ptySessionWithStderr(t, ts.dial(t, "p", newKey(t)))
	waitFor(t, "the game screen", func() bool { return strings.Contains(out.String(), "hint") })
	send("i") // a ranked game asks first
	waitFor(t, "the question", func() bool { return strings.Contains(out.String(), "Ask the AI?") })
	send("y")
	if code := exitCode(t, s.Wait()); code != 1 || strings.TrimSpace(stderr.String()) != internalErrorLine {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if !strings.Contains(ts.logs.String(), "searchWithABug") {
		t.Errorf("the log lacks the search's stack:\n%s", ts.logs.String())
	}
}
