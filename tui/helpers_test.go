package tui

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// fakeStore is an in-memory Store that remembers every call.
type fakeStore struct {
	mu       sync.Mutex
	games    map[int]*engine.Game
	nextSeed uint64
	calls    []string // "record 4 up", "end 3", …
	recorded map[int][]engine.Direction

	recordErr    error
	resumeErr    error
	top          []Standing
	me           *Standing
	standingsErr error
}

func newFakeStore() *fakeStore {
	return &fakeStore{games: map[int]*engine.Game{}, nextSeed: 1, recorded: map[int][]engine.Direction{}}
}

func (s *fakeStore) log(format string, args ...any) {
	s.calls = append(s.calls, fmt.Sprintf(format, args...))
}

func (s *fakeStore) Resume(_ context.Context, size int) (*engine.Game, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log("resume %d", size)
	if s.resumeErr != nil {
		return nil, s.resumeErr
	}
	if g, ok := s.games[size]; ok {
		// Like a database: the stored game, rebuilt, not the caller's pointer.
		return engine.Replay(size, g.Seed(), s.recorded[size])
	}
	return s.newGame(size)
}

func (s *fakeStore) NewGame(_ context.Context, size int) (*engine.Game, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log("new %d", size)
	return s.newGame(size)
}

func (s *fakeStore) newGame(size int) (*engine.Game, error) {
	g, err := engine.NewGame(size, s.nextSeed)
	if err != nil {
		return nil, err
	}
	s.nextSeed++
	s.games[size] = g
	s.recorded[size] = nil
	return engine.Replay(size, g.Seed(), nil)
}

// put makes the stored game of that size the one played from seed by dirs.
func (s *fakeStore) put(t *testing.T, size int, seed uint64, dirs []engine.Direction) {
	t.Helper()
	g, err := engine.NewGame(size, seed)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.games[size] = g
	s.recorded[size] = dirs
}

func (s *fakeStore) Record(_ context.Context, size int, d engine.Direction, g *engine.Game) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recordErr != nil {
		return s.recordErr
	}
	s.log("record %d %s", size, d)
	s.recorded[size] = append(s.recorded[size], d)
	// The game handed over must be the stored one plus this move, in order.
	want, err := engine.Replay(size, s.games[size].Seed(), s.recorded[size])
	if err != nil || want.Board() != g.Board() || want.Score() != g.Score() || want.Moves() != g.Moves() {
		s.log("MISMATCH %d", size)
	}
	return nil
}

func (s *fakeStore) MarkAssisted(_ context.Context, size int, _ *engine.Game) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log("assisted %d", size)
	return nil
}

func (s *fakeStore) End(_ context.Context, size int, g *engine.Game) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log("end %d %d", size, g.Score())
	return nil
}

func (s *fakeStore) Standings(_ context.Context, size, limit int) ([]Standing, *Standing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	top := s.top
	if len(top) > limit {
		top = top[:limit]
	}
	return top, s.me, s.standingsErr
}

func (s *fakeStore) count(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func (s *fakeStore) moves(size int) []engine.Direction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]engine.Direction(nil), s.recorded[size]...)
}

// fakeHinter always suggests the first direction that changes the board,
// in the order of dirs.
type fakeHinter struct {
	mu    sync.Mutex
	dirs  []engine.Direction
	err   error
	calls int
}

func (h *fakeHinter) Suggest(_ context.Context, b engine.Board) (engine.Direction, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	if h.err != nil {
		return 0, h.err
	}
	for _, d := range h.dirs {
		c := b
		if _, moved := c.Move(d); moved {
			return d, nil
		}
	}
	return 0, errors.New("no move")
}

// harness drives a Model the way Bubble Tea does: one message at a time,
// running the commands it returns and feeding their messages back.
type harness struct {
	t     *testing.T
	m     *Model
	store *fakeStore
	quit  bool
}

func newHarness(t *testing.T, opts Options, width, height int) *harness {
	t.Helper()
	st, _ := opts.Store.(*fakeStore)
	if opts.Store == nil {
		st = newFakeStore()
		opts.Store = st
	}
	if opts.Player == "" {
		opts.Player = "ann"
	}
	if opts.Profile == colorprofile.Unknown {
		opts.Profile = colorprofile.ASCII
	}
	if opts.AutoDelay == 0 {
		opts.AutoDelay = 1 // nanosecond: tests do not wait for the AI
	}
	h := &harness{t: t, m: New(opts), store: st}
	h.send(tea.ColorProfileMsg{Profile: opts.Profile})
	h.send(tea.WindowSizeMsg{Width: width, Height: height})
	return h
}

// send delivers msg and every message its commands produce, up to a bound
// (autoplay would otherwise run to the end of the game).
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	h.sendN(msg, 100)
}

func (h *harness) sendN(msg tea.Msg, budget int) {
	h.t.Helper()
	queue := []tea.Msg{msg}
	for len(queue) > 0 && budget > 0 {
		msg, queue = queue[0], queue[1:]
		budget--
		if _, ok := msg.(tea.QuitMsg); ok {
			h.quit = true
			continue
		}
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				if c != nil {
					queue = append(queue, c())
				}
			}
			continue
		}
		if msg == nil {
			continue
		}
		_, cmd := h.m.Update(msg)
		if cmd != nil {
			queue = append(queue, cmd())
		}
	}
}

// press sends key presses, named as in the key map ("up", "tab", "w", "ctrl+c").
func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyPress(k))
	}
}

func keyPress(k string) tea.KeyPressMsg {
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

// frame is the current view without escape codes and trailing blanks.
func (h *harness) frame() string {
	h.t.Helper()
	return plain(h.m.View().Content)
}

func plain(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
}

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui/ -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("frame %s differs from %s:\n--- got\n%s--- want\n%s", name, path, got, want)
	}
}

// loadMoves reads a move list written as letters (u, r, d, l).
func loadMoves(t *testing.T, name string) []engine.Direction {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []engine.Direction
	for _, c := range strings.TrimSpace(string(b)) {
		d, err := engine.ParseDirection(string(c))
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	return dirs
}
