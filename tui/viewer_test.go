package tui

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// live drives a model as package screen does: Update on one goroutine,
// each command on its own, its message back in the queue. The screens
// that show games wait on the game service in their commands, which the
// synchronous harness cannot run.
type live struct {
	t    *testing.T
	m    tea.Model
	msgs chan tea.Msg
	done <-chan struct{}
	quit bool
}

func newLive(t *testing.T, m tea.Model, width, height int) *live {
	t.Helper()
	l := &live{t: t, m: m, msgs: make(chan tea.Msg, 256), done: t.Context().Done()}
	l.run(m.Init())
	l.deliver(tea.ColorProfileMsg{Profile: colorprofile.ASCII})
	l.deliver(tea.WindowSizeMsg{Width: width, Height: height})
	return l
}

// run runs cmd on its own goroutine; its message joins the queue.
func (l *live) run(cmd tea.Cmd) {
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

// deliver hands msg to the model, as the screen does.
func (l *live) deliver(msg tea.Msg) {
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
		_, cmd := l.m.Update(msg)
		l.run(cmd)
	}
}

func (l *live) press(keys ...string) {
	l.t.Helper()
	for _, k := range keys {
		l.deliver(keyPress(k))
	}
}

func (l *live) frame() string {
	l.t.Helper()
	return plain(l.m.View().Content)
}

// waitFor handles the messages that come until ok accepts the frame.
func (l *live) waitFor(what string, ok func(frame string) bool) string {
	l.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if f := l.frame(); ok(f) {
			return f
		}
		select {
		case msg := <-l.msgs:
			l.deliver(msg)
		case <-deadline:
			l.t.Fatalf("timed out waiting for %s; frame:\n%s", what, l.frame())
		}
	}
}

// waitQuit handles the messages that come until the model quits.
func (l *live) waitQuit() {
	l.t.Helper()
	l.waitFor("the end", func(string) bool { return l.quit })
}

// settle handles the messages that come within d.
func (l *live) settle(d time.Duration) {
	l.t.Helper()
	end := time.After(d)
	for {
		select {
		case msg := <-l.msgs:
			l.deliver(msg)
		case <-end:
			return
		}
	}
}

func has(s string) func(string) bool { return func(f string) bool { return strings.Contains(f, s) } }

// newService is the game service over a real SQLite file.
func newService(t *testing.T) *game.Service {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	store, err := sqlite.Open(context.Background(), t.TempDir(), sqlite.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return game.New(store, quiet)
}

func identify(t *testing.T, svc *game.Service, name string) game.Player {
	t.Helper()
	p, err := svc.Identify(context.Background(), "SHA256:"+name, "ssh-ed25519", name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// openGame opens name's game of size n in a seat of its own, closed when
// the test ends.
func openGame(t *testing.T, svc *game.Service, name string, n int) (*game.Seat, *game.Play) {
	t.Helper()
	seat := svc.Seat(identify(t, svc, name), func() {})
	t.Cleanup(seat.Close)
	p, err := seat.Open(context.Background(), n, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	return seat, p
}

// step plays the first of left, down, right, up that moves, and returns
// the board before, the direction and the result.
func step(t *testing.T, p *game.Play) (engine.Board, engine.Direction, engine.Result) {
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

// tiles are the numbers on a frame's board, row by row, read off the
// lines that hold no words (header, notices and keys do): what a person
// reads off the board.
func tiles(frame string) string {
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

// boardTiles is what tiles reads off a frame of b (values under 1000).
func boardTiles(b engine.Board) string {
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
