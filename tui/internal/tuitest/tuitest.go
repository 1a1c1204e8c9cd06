package tuitest

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
	"github.com/ssh2048/ssh2048/tui/draw"
)

// Live drives a model as package screen does: Update on one goroutine,
// each command on its own, its message back in the queue. The screens
// that show games wait on the game service in their commands, which the
// synchronous harness cannot run.
type Live struct {
	t    *testing.T
	M    tea.Model
	msgs chan tea.Msg
	done <-chan struct{}
	quit bool
}

func NewLive(t *testing.T, m tea.Model, width, height int) *Live {
	t.Helper()
	l := &Live{t: t, M: m, msgs: make(chan tea.Msg, 256), done: t.Context().Done()}
	l.run(m.Init())
	l.Deliver(tea.ColorProfileMsg{Profile: colorprofile.ASCII})
	l.Deliver(tea.WindowSizeMsg{Width: width, Height: height})
	return l
}

// run runs cmd on its own goroutine; its message joins the queue.
func (l *Live) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		select {
		case l.msgs <- msg:
		case <-l.done:
		}
	}()
}

// Deliver hands msg to the model, as the screen does.
func (l *Live) Deliver(msg tea.Msg) {
	l.t.Helper()
	switch msg := msg.(type) {
	case nil:
	case tea.QuitMsg:
		l.quit = true
	case tea.BatchMsg:
		for _, c := range msg {
			l.run(c)
		}
	default:
		if l.quit {
			return
		}
		_, cmd := l.M.Update(msg)
		l.run(cmd)
	}
}

func (l *Live) Press(keys ...string) {
	l.t.Helper()
	for _, k := range keys {
		l.Deliver(KeyPress(k))
	}
}

func (l *Live) Frame() string {
	l.t.Helper()
	return Plain(l.M.View().Content)
}

// WaitFor handles the messages that come until ok accepts the frame.
func (l *Live) WaitFor(what string, ok func(frame string) bool) string {
	l.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if f := l.Frame(); ok(f) {
			return f
		}
		select {
		case msg := <-l.msgs:
			l.Deliver(msg)
		case <-deadline:
			l.t.Fatalf("timed out waiting for %s; frame:\n%s", what, l.Frame())
		}
	}
}

// WaitQuit handles the messages that come until the model quits.
func (l *Live) WaitQuit() {
	l.t.Helper()
	l.WaitFor("the end", func(string) bool { return l.quit })
}

// Settle handles the messages that come within d.
func (l *Live) Settle(d time.Duration) {
	l.t.Helper()
	end := time.After(d)
	for {
		select {
		case msg := <-l.msgs:
			l.Deliver(msg)
		case <-end:
			return
		}
	}
}

func Has(s string) func(string) bool { return func(f string) bool { return strings.Contains(f, s) } }

// NewService is the game service over a real SQLite file, built with
// opts.
func NewService(t *testing.T, opts ...game.Option) *game.Service {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	st, err := sqlite.Open(context.Background(), t.TempDir(), sqlite.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return game.New(st, quiet, opts...)
}

func Identify(t *testing.T, svc *game.Service, name string) game.Player {
	t.Helper()
	p, err := svc.Identify(context.Background(), "SHA256:"+name, "ssh-ed25519", name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// OpenGame opens name's game of size n in a seat of its own, closed when
// the test ends.
func OpenGame(t *testing.T, svc *game.Service, name string, n int) (*game.Seat, *game.Play) {
	t.Helper()
	seat := svc.Seat(Identify(t, svc, name), func(error) {})
	t.Cleanup(seat.Close)
	p, err := seat.Open(context.Background(), n, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	return seat, p
}

// WatchPlayer starts watching who's game in play, as `watch NAME` does.
func WatchPlayer(t *testing.T, svc *game.Service, who string) *game.Watch {
	t.Helper()
	w, err := svc.WatchPlayer(context.Background(), who)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// Step plays the first of left, down, right, up that moves, and returns
// the board before, the direction and the result.
func Step(t *testing.T, p *game.Play) (engine.Board, engine.Direction, engine.Result) {
	t.Helper()
	before := p.Board()
	for _, d := range []engine.Direction{engine.Left, engine.Down, engine.Right, engine.Up} {
		res, err := p.Move(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		if res.Moved {
			return before, d, res
		}
	}
	t.Fatal("no move changes the board")
	return before, 0, engine.Result{}
}

// Tiles are the numbers on a frame's board, row by row, read off the
// lines that hold no words (header, notices and keys do): what a person
// reads off the board.
func Tiles(frame string) string {
	var rows []string
	for _, l := range strings.Split(frame, "\n") {
		if strings.IndexFunc(l, unicode.IsLetter) >= 0 {
			continue
		}
		var row []string
		for _, f := range strings.Fields(l) {
			if n := strings.Trim(f, "[]│·"); n != "" && strings.Trim(n, "0123456789") == "" {
				row = append(row, n)
			}
		}
		if len(row) > 0 {
			rows = append(rows, strings.Join(row, " "))
		}
	}
	return strings.Join(rows, "/")
}

// BoardTiles is what tiles reads off a frame of b (values under 1000).
func BoardTiles(b engine.Board) string {
	var rows []string
	for r := range b.Size() {
		var row []string
		for c := range b.Size() {
			if v := b.Value(r, c); v != 0 {
				row = append(row, strconv.Itoa(v))
			}
		}
		if len(row) > 0 {
			rows = append(rows, strings.Join(row, " "))
		}
	}
	return strings.Join(rows, "/")
}

func KeyPress(k string) tea.KeyPressMsg {
	special := map[string]rune{
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"tab": tea.KeyTab, "esc": tea.KeyEscape, "enter": tea.KeyEnter,
	}
	if c, ok := special[k]; ok {
		return tea.KeyPressMsg{Code: c}
	}
	if k == "ctrl+c" {
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

func Plain(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
}

// AssertFits checks a frame is exactly the window: no line wider, no more lines.
func AssertFits(t *testing.T, frame string, width, height int) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(frame, "\n"), "\n")
	if len(lines) > height {
		t.Errorf("frame has %d lines, window %d", len(lines), height)
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w > width {
			t.Errorf("line %d is %d wide, window %d: %q", i, w, width, l)
		}
	}
}

// Played is a game played through the service, with what each move
// showed the player.
type Played struct {
	ID     int64
	Boards []engine.Board // after each move; [0] the start
	Scores []int
	Marks  []draw.Marks // the marks after each move; [0] none
}

func PlayGame(t *testing.T, svc *game.Service, name string, n, moves int) Played {
	t.Helper()
	_, p := OpenGame(t, svc, name, n)
	g := Played{ID: p.ID(), Boards: []engine.Board{p.Board()}, Scores: []int{0}, Marks: []draw.Marks{{}}}
	for i := 0; i < moves && !p.Over(); i++ {
		before, d, res := Step(t, p)
		g.Boards = append(g.Boards, p.Board())
		g.Scores = append(g.Scores, p.Score())
		g.Marks = append(g.Marks, draw.Marks{On: true, Spawn: res.Spawn, Merged: before.Merges(d)})
	}
	return g
}

func MoveShown(i, of int) func(string) bool {
	return Has("Move " + strconv.Itoa(i) + "/" + strconv.Itoa(of))
}

func MovesShown(n int) func(string) bool { return Has("Moves " + strconv.Itoa(n) + " ") }
