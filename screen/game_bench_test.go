package screen_test

import (
	"context"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/screen"
	"github.com/ssh2048/ssh2048/tui"
)

// rankedStore is a guest store whose player has a rank, so that the
// header looks as a registered player's does; the rank never changes, so
// a refresh draws nothing. It shows the benchmark the board, so that it
// can pick keys that move.
type rankedStore struct {
	*tui.GuestStore
	mu    sync.Mutex
	board engine.Board
}

func (s *rankedStore) Open(ctx context.Context, size int, fresh bool) (tui.Play, error) {
	g, err := s.GuestStore.Open(ctx, size, fresh)
	if err != nil {
		return nil, err
	}
	s.set(g.Board())
	return tappedPlay{g, s}, nil
}

type tappedPlay struct {
	tui.Play
	s *rankedStore
}

func (p tappedPlay) Move(ctx context.Context, d engine.Direction) (engine.Result, error) {
	res, err := p.Play.Move(ctx, d)
	p.s.set(p.Board())
	return res, err
}

func (s *rankedStore) set(b engine.Board) {
	s.mu.Lock()
	s.board = b
	s.mu.Unlock()
}

// moves is the directions that change the board.
func (s *rankedStore) moves() []engine.Direction {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ds []engine.Direction
	for _, d := range []engine.Direction{engine.Up, engine.Down, engine.Left, engine.Right} {
		if b := s.board; func() bool { _, moved := b.Move(d); return moved }() {
			ds = append(ds, d)
		}
	}
	return ds
}

func (*rankedStore) Standings(context.Context, int, int) ([]tui.Standing, *tui.Standing, error) {
	me := &tui.Standing{Rank: 123, Player: "bench", Score: 1000, MaxTile: 128}
	return []tui.Standing{*me}, me, nil
}

// countingWriter counts what the screen writes, by kind of byte.
type countingWriter struct {
	mu    sync.Mutex
	total int
	kinds map[string]int
	wrote chan struct{} // a token after each write, for waitPast
}

func newCountingWriter() *countingWriter {
	return &countingWriter{wrote: make(chan struct{}, 1)}
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.total += len(p)
	if w.kinds != nil {
		classify(w.kinds, string(p))
	}
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

// waitPast waits until more than n bytes have been written: a move's
// frame is drawn once its commit returns, on the command's goroutine,
// after Send has returned. (A frame that never comes ends the run at the
// test binary's -timeout.)
func (w *countingWriter) waitPast(n int) {
	for w.bytes() <= n {
		<-w.wrote
	}
}

func (w *countingWriter) bytes() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}

// classify adds the bytes of out to kinds: SGR, cursor moves, erases and
// repeats, spaces and other text.
func classify(kinds map[string]int, out string) {
	for state := byte(0); len(out) > 0; {
		seq, width, n, newState := ansi.DecodeSequence(out, state, nil)
		state = newState
		out = out[n:]
		kind := "text"
		switch {
		case seq == " ":
			kind = "spaces"
		case width > 0:
		case seq == "\r" || seq == "\n" || seq == "\b" || seq == ansi.ReverseIndex:
			kind = "moves"
		case strings.HasPrefix(seq, "\x1b["):
			switch seq[len(seq)-1] {
			case 'm':
				kind = "sgr"
			case 'A', 'B', 'C', 'D', 'H':
				kind = "moves"
			case 'X', 'K', 'J', 'b':
				kind = "erase"
			default:
				kind = "other"
			}
		default:
			kind = "other"
		}
		kinds[kind] += len(seq)
	}
}

// gameScreen is the game screen of a registered player at 80×24, drawn
// by package screen on w.
func gameScreen(tb testing.TB, p colorprofile.Profile, term string, w *countingWriter, seed uint64) (*screen.Screen, *rankedStore) {
	tb.Helper()
	var n uint64
	store := &rankedStore{GuestStore: tui.NewGuestStore(nil, func() uint64 { n++; return seed*1000 + n })}
	m := tui.New(tui.Options{Store: store, Player: "bench", Profile: p})
	// No frame interval: a frame is drawn as soon as each message is handled.
	// Line feeds reach the terminal as written, as the server writes them
	// (to the session's channel).
	s := screen.New(m, w, screen.Options{Width: 80, Height: 24, Profile: p, Term: term, RawLineFeed: true, FPS: 1 << 30})
	in, typing := io.Pipe()
	tb.Cleanup(func() { typing.Close(); s.Stop() })
	s.Start(in)
	// The first frame; then what the model asked for at the start (the
	// background colour and the rank) arrives and is drawn.
	s.Send(tea.BackgroundColorMsg{})
	// The rank arrives from a command, on a goroutine of its own: let it
	// be drawn before any frame is counted. After that the rank does not
	// change, and its refreshes draw nothing.
	time.Sleep(20 * time.Millisecond)
	return s, store
}

var arrows = map[engine.Direction]tea.KeyPressMsg{
	engine.Up: {Code: tea.KeyUp}, engine.Down: {Code: tea.KeyDown},
	engine.Left: {Code: tea.KeyLeft}, engine.Right: {Code: tea.KeyRight},
}

// playOne plays a random move that changes the board, or n when none does
// (the game is over: a new one starts), waits for its frame and returns
// its bytes.
func playOne(s *screen.Screen, store *rankedStore, w *countingWriter, rng *rand.Rand) int {
	key := tea.KeyPressMsg{Code: 'n', Text: "n"}
	if ds := store.moves(); len(ds) > 0 {
		key = arrows[ds[rng.IntN(len(ds))]]
	}
	before := w.bytes()
	s.Send(key)
	w.waitPast(before)
	return w.bytes() - before
}

// BenchmarkGameFrame is the game screen at 80×24, a move at a time:
// the key through Update (a guest's game: no storage), View and the
// renderer, for each colour profile, on xterm-256color (which erases with
// the background colour: see screen.Options.Term) and, in 256 colours,
// on a terminal that does not. An op is one key that moves the board and
// its frame; ns/op is the wall clock, which includes waking the
// benchmark's goroutine, cpu-ns/op the process's CPU time. bytes/frame
// and its split are over a fixed run of 20 games of 400 moves (seeded; a
// game that ends is followed by a new one), the same on every run.
//
//	go test -run '^$' -bench GameFrame -benchmem ./screen/
func BenchmarkGameFrame(b *testing.B) {
	for _, t := range []struct {
		p    colorprofile.Profile
		term string
	}{
		{colorprofile.ANSI256, "xterm-256color"},
		{colorprofile.ANSI256, "tmux-256color"},
		{colorprofile.TrueColor, "xterm-256color"},
		{colorprofile.ANSI, "xterm-256color"},
		{colorprofile.ASCII, "xterm-256color"},
	} {
		p := t.p
		b.Run(p.String()+"/"+t.term, func(b *testing.B) {
			kinds := map[string]int{}
			frames, total := 0, 0
			for seed := range uint64(20) {
				w := newCountingWriter()
				s, store := gameScreen(b, p, t.term, w, seed)
				w.mu.Lock()
				w.kinds = kinds
				w.mu.Unlock()
				rng := rand.New(rand.NewPCG(seed, 1))
				for range 400 {
					total += playOne(s, store, w, rng)
					frames++
				}
				s.Stop()
			}
			w := newCountingWriter()
			s, store := gameScreen(b, p, t.term, w, 99)
			rng := rand.New(rand.NewPCG(99, 1))
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime(b)
			for b.Loop() {
				playOne(s, store, w, rng)
			}
			cpu := cpuTime(b) - cpu0
			b.StopTimer()
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(total)/float64(frames), "bytes/frame")
			for _, k := range []string{"sgr", "moves", "spaces", "text", "erase"} {
				b.ReportMetric(float64(kinds[k])/float64(frames), k+"-B/frame")
			}
		})
	}
}

// cpuTime is the process's CPU time, user and system.
func cpuTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
