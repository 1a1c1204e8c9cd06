package load

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
	"github.com/ssh2048/ssh2048/wire"
)

// testServer is the real server on 127.0.0.1:0 over a real SQLite file in
// a temporary directory (the same setup as server's own end-to-end tests).
type testServer struct {
	addr  string
	dir   string
	store *sqlite.Store
	stop  func() // idempotent
}

// startServer starts a server, with tui as its game screen (nil: the
// server's default), and stops it when the test ends.
func startServer(t testing.TB, tui server.TUIFunc) *testServer {
	t.Helper()
	return startServerAt(t, t.TempDir(), "127.0.0.1:0", tui)
}

// startServerAt starts a server on addr over the data in dir.
func startServerAt(t testing.TB, dir, addr string, tui server.TUIFunc) *testServer {
	t.Helper()
	s := servertest.Start(t, dir, addr, func(c *server.Config) { c.TUI = tui })
	return &testServer{addr: s.Addr, dir: s.Dir, store: s.Store, stop: s.Stop}
}

// storedMoves sums the moves of every listed game of a kind on 4×4.
func (ts *testServer) storedMoves(t testing.TB, kind store.Kind) (players, moves int) {
	t.Helper()
	rows, err := ts.store.Leaderboard(context.Background(), 4, kind, wire.MaxScoresLimit)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		moves += r.Moves
	}
	return len(rows), moves
}

// screenFault makes the test game screen misbehave, to show that the
// check notices.
type screenFault int

const (
	faultNone       screenFault = iota
	faultHideDown               // a down move is stored but not drawn
	faultForgetLeft             // a left move is drawn but not stored
	// faultSlowFirst: no fault in what is stored and drawn, but the first
	// move's commit takes slowMove, as a commit stuck behind a lock can, so
	// its frame comes late; and every arrow key moves (the key's way, or
	// the next way that moves), so that the key after the slow one is a
	// move too.
	faultSlowFirst
	faultHideOne // the first move is stored but not drawn
	faultDrawOne // the first arrow draws a move that is not stored
	faultNoHelp  // no fault in the game, but "?" does nothing
)

// slowMove is how long faultSlowFirst's first move takes.
const slowMove = 1500 * time.Millisecond

// gameScreen is a small game screen over the server's own game API: each
// arrow key plays a move through TUIEnv.Seat (so it is committed before
// the screen changes) and the screen shows the board and the move count;
// "?" opens a help screen without it, and closes it, as the server's
// game screen does.
type gameScreen struct {
	ctx     context.Context
	play    *game.Play
	fault   screenFault
	st      wire.State
	shown   int // moves drawn, which faultHideDown and faultForgetLeft skew
	help    bool
	drewOne bool // faultDrawOne's move is drawn
	failed  string
}

func testScreen(fault screenFault) server.TUIFunc {
	return func(sess ssh.Session, env server.TUIEnv) tea.Model {
		m := &gameScreen{ctx: sess.Context(), fault: fault}
		play, err := env.Seat.Open(sess.Context(), 4, store.KindHuman, false)
		if err != nil {
			m.failed = err.Error()
			return m
		}
		m.play, m.st = play, play.State(engine.Result{})
		m.shown = m.st.Moves
		return m
	}
}

func (m *gameScreen) Init() tea.Cmd { return nil }

func (m *gameScreen) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || m.play == nil {
		return m, nil
	}
	if k.String() == helpKey && m.fault != faultNoHelp {
		m.help = !m.help
		return m, nil
	}
	dirs := map[string]engine.Direction{"up": engine.Up, "down": engine.Down, "left": engine.Left, "right": engine.Right}
	d, ok := dirs[k.String()]
	if !ok || m.help {
		return m, nil
	}
	if m.fault == faultForgetLeft && d == engine.Left || m.fault == faultDrawOne && !m.drewOne {
		m.shown++ // pretend: draw a change that is not stored
		m.drewOne = true
		return m, nil
	}
	res, err := m.play.Move(m.ctx, d)
	for turn := 1; m.fault == faultSlowFirst && err == nil && !res.Moved && turn < 4; turn++ {
		res, err = m.play.Move(m.ctx, (d+engine.Direction(turn))%4)
	}
	if err != nil {
		m.failed = err.Error()
		return m, nil
	}
	if m.fault == faultSlowFirst && res.Moved && m.st.Moves == 0 {
		time.Sleep(slowMove) // Update holds the screen, as the real one does for a commit
	}
	hide := m.fault == faultHideDown && d == engine.Down || m.fault == faultHideOne && m.st.Moves == 0
	m.st = m.play.State(res)
	if res.Moved && !hide {
		m.shown++
	}
	return m, nil
}

func (m *gameScreen) View() tea.View {
	if m.help {
		return tea.NewView("arrows move; ? closes this help\n")
	}
	var b strings.Builder
	if m.failed != "" {
		b.WriteString("error: " + m.failed + "\n")
	}
	for _, row := range m.st.Board {
		for _, v := range row {
			fmt.Fprintf(&b, "%6d", v)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Moves %d  Score %d\n", m.shown, m.st.Score)
	if m.fault == faultHideDown {
		// The board would give the hidden move away; show only the count.
		b.Reset()
		fmt.Fprintf(&b, "Moves %d\n", m.shown)
	}
	return tea.NewView(b.String())
}

// staticScreen draws once and ignores every key, as a screen that is not
// a game would.
func staticScreen(ssh.Session, server.TUIEnv) tea.Model { return static{} }

type static struct{}

func (static) Init() tea.Cmd                       { return nil }
func (static) Update(tea.Msg) (tea.Model, tea.Cmd) { return static{}, nil }
func (static) View() tea.View                      { return tea.NewView("nothing to play here\n") }

// keyRecorder is a static screen that keeps the keys it was sent, a list
// a session; only screens of one test write to it.
type keyRecorder struct {
	mu   sync.Mutex
	keys [][]string
}

func (r *keyRecorder) screen(ssh.Session, server.TUIEnv) tea.Model {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, nil)
	return recordingStatic{r, len(r.keys) - 1}
}

type recordingStatic struct {
	r       *keyRecorder
	session int
}

func (m recordingStatic) Init() tea.Cmd { return nil }
func (m recordingStatic) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		m.r.mu.Lock()
		m.r.keys[m.session] = append(m.r.keys[m.session], k.String())
		m.r.mu.Unlock()
	}
	return m, nil
}
func (recordingStatic) View() tea.View { return tea.NewView("nothing to play here\n") }

// smallConfig is a quick run against ts.
func smallConfig(ts *testServer, mode Mode) Config {
	c := DefaultConfig()
	c.Addr = ts.addr
	c.Mode = mode
	c.Sessions = 5
	c.Duration = 2 * time.Second
	c.Rate = 5
	c.ConnectTimeout = 10 * time.Second
	return c
}
