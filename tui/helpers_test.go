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

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// fakeStore is an in-memory Store that remembers every call. Like a
// database it keeps each size's seed and moves, and opening a game replays
// them, so a game on screen is only what was saved.
type fakeStore struct {
	mu       sync.Mutex
	seeds    map[int]uint64
	recorded map[int][]engine.Direction
	assisted map[int]uint64 // size → the seed of the game marked assisted
	nextSeed uint64
	calls    []string // "open 4", "create 4", "new 4", "record 4 up", "end 3", …

	moveErr      error // returned by every Move while set
	openErr      error
	top          []Standing
	me           *Standing
	standingsErr error
}

func newFakeStore() *fakeStore {
	return &fakeStore{seeds: map[int]uint64{}, recorded: map[int][]engine.Direction{}, assisted: map[int]uint64{}, nextSeed: 1}
}

func (s *fakeStore) log(format string, args ...any) {
	s.calls = append(s.calls, fmt.Sprintf(format, args...))
}

func (s *fakeStore) Open(_ context.Context, size int, fresh bool) (Play, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.openErr != nil {
		return nil, s.openErr
	}
	if _, ok := s.seeds[size]; !ok || fresh {
		if fresh {
			s.log("new %d", size)
		} else {
			s.log("create %d", size)
		}
		s.seeds[size] = s.nextSeed
		s.recorded[size] = nil
		s.nextSeed++
	} else {
		s.log("open %d", size)
	}
	g, err := engine.PCG.Replay(size, s.seeds[size], s.recorded[size])
	if err != nil {
		return nil, err
	}
	return &fakeGame{Game: g, store: s, size: size, seed: s.seeds[size]}, nil
}

// put makes the stored game of that size the one played from seed by dirs.
func (s *fakeStore) put(size int, seed uint64, dirs []engine.Direction) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seeds[size] = seed
	s.recorded[size] = dirs
}

func (s *fakeStore) Standings(_ context.Context, size, limit int) ([]Standing, *Standing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log("standings %d %d", size, limit)
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

// fakeGame is one open game of a fakeStore.
type fakeGame struct {
	*engine.Game
	store  *fakeStore
	size   int
	seed   uint64
	closed bool
}

func (g *fakeGame) Move(_ context.Context, d engine.Direction) (engine.Result, error) {
	s := g.store
	s.mu.Lock()
	defer s.mu.Unlock()
	if g.closed || s.seeds[g.size] != g.seed {
		s.log("MISMATCH move on a closed or replaced game")
	}
	res := g.Game.Move(d)
	if !res.Moved {
		return res, nil
	}
	if s.moveErr != nil {
		return engine.Result{}, s.moveErr // the game in memory is now ahead of the store
	}
	s.log("record %d %s", g.size, d)
	s.recorded[g.size] = append(s.recorded[g.size], d)
	// The stored moves must replay to the game on screen, in order.
	want, err := engine.PCG.Replay(g.size, g.seed, s.recorded[g.size])
	if err != nil || want.Board() != g.Board() || want.Score() != g.Score() || want.Moves() != g.Moves() {
		s.log("MISMATCH %d", g.size)
	}
	if g.Over() {
		s.log("end %d %d", g.size, g.Score())
	}
	return res, nil
}

func (g *fakeGame) MarkAssisted(context.Context) error {
	g.store.mu.Lock()
	defer g.store.mu.Unlock()
	g.store.log("assisted %d", g.size)
	g.store.assisted[g.size] = g.seed
	return nil
}

// Kind is assisted once the game was marked, as a stored game knows.
func (g *fakeGame) Kind() store.Kind {
	g.store.mu.Lock()
	defer g.store.mu.Unlock()
	if seed, ok := g.store.assisted[g.size]; ok && seed == g.seed {
		return store.KindAssisted
	}
	return store.KindHuman
}

func (g *fakeGame) Watchers() int { return 0 }

func (g *fakeGame) Close() {
	g.store.mu.Lock()
	defer g.store.mu.Unlock()
	g.closed = true
}

// fakeHinter always suggests the first direction that changes the board,
// in the order of dirs.
type fakeHinter struct {
	mu    sync.Mutex
	dirs  []engine.Direction
	err   error
	calls int
}

func (h *fakeHinter) Hint(ctx context.Context, b engine.Board) (engine.Direction, error) {
	return h.suggest(ctx, b)
}

func (h *fakeHinter) Autoplay(ctx context.Context, b engine.Board) (engine.Direction, error) {
	return h.suggest(ctx, b)
}

func (h *fakeHinter) suggest(_ context.Context, b engine.Board) (engine.Direction, error) {
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
		h.send(tuitest.KeyPress(k))
	}
}

// frame is the current view without escape codes and trailing blanks.
func (h *harness) frame() string {
	h.t.Helper()
	return tuitest.Plain(h.m.View().Content)
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
