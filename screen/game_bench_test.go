package screen_test

import (
	"context"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/screen"
	"github.com/ssh2048/ssh2048/tui"
)

// rankedStore is a guest store whose player has a rank, so that the
// header looks as a registered player's does; the rank never changes, so
// a refresh draws nothing.
type rankedStore struct{ *tui.GuestStore }

func (rankedStore) Standings(context.Context, int, int) ([]tui.Standing, *tui.Standing, error) {
	me := &tui.Standing{Rank: 123, Player: "bench", Score: 1000, MaxTile: 128}
	return []tui.Standing{*me}, me, nil
}

// countingWriter counts what the screen writes, by kind of byte.
type countingWriter struct {
	mu    sync.Mutex
	total int
	kinds map[string]int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.total += len(p)
	if w.kinds != nil {
		classify(w.kinds, string(p))
	}
	return len(p), nil
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
		case seq == "\r" || seq == "\n":
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
// by package screen on w; every Send draws its frame before returning.
func gameScreen(tb testing.TB, p colorprofile.Profile, w io.Writer, seed uint64) *screen.Screen {
	tb.Helper()
	var n uint64
	store := rankedStore{tui.NewGuestStore(nil, func() uint64 { n++; return seed*1000 + n })}
	m := tui.New(tui.Options{Store: store, Player: "bench", Profile: p})
	// No frame interval: a frame is drawn as soon as each message is handled.
	s := screen.New(m, w, screen.Options{Width: 80, Height: 24, Profile: p, FPS: 1 << 30})
	in, typing := io.Pipe()
	tb.Cleanup(func() { typing.Close(); s.Stop() })
	s.Start(in)
	// The first frame; then what the model asked for at the start (the
	// background colour and the rank) arrives and is drawn.
	s.Send(tea.BackgroundColorMsg{})
	return s
}

var arrows = []tea.KeyPressMsg{{Code: tea.KeyUp}, {Code: tea.KeyDown}, {Code: tea.KeyLeft}, {Code: tea.KeyRight}}

// playFrames plays moves random moves and returns the frames drawn and
// their bytes. A key that does not move the board draws nothing; then the
// other directions are tried, and when none moves, the game is over and n
// starts a new one.
func playFrames(s *screen.Screen, w *countingWriter, rng *rand.Rand, moves int) (frames, bytes int) {
	for range moves {
		n := step(s, w, rng)
		frames++
		bytes += n
	}
	return frames, bytes
}

// step plays one move (see playFrames) and returns the bytes of its frame.
func step(s *screen.Screen, w *countingWriter, rng *rand.Rand) int {
	first := rng.IntN(len(arrows))
	for i := range arrows {
		before := w.bytes()
		s.Send(arrows[(first+i)%len(arrows)])
		if n := w.bytes() - before; n > 0 {
			return n
		}
	}
	before := w.bytes()
	s.Send(tea.KeyPressMsg{Code: 'n', Text: "n"})
	return w.bytes() - before
}

// BenchmarkGameFrame is the game screen at 80×24, a move at a time:
// the key through Update (a guest's game: no storage), View and the
// renderer, for each colour profile. ns/op is one move and its frame
// (keys that do not move the board, drawing nothing, are not counted).
// bytes/frame and its split are over a fixed run of 20 games of 400 moves
// (seeded; a game that ends is followed by a new one), the same on every
// run.
//
//	go test -run '^$' -bench GameFrame -benchmem ./screen/
func BenchmarkGameFrame(b *testing.B) {
	for _, p := range []colorprofile.Profile{colorprofile.ANSI256, colorprofile.TrueColor, colorprofile.ANSI, colorprofile.ASCII} {
		b.Run(p.String(), func(b *testing.B) {
			kinds := map[string]int{}
			frames, total := 0, 0
			for seed := range uint64(20) {
				w := &countingWriter{}
				s := gameScreen(b, p, w, seed)
				w.mu.Lock()
				w.kinds = kinds
				w.mu.Unlock()
				f, n := playFrames(s, w, rand.New(rand.NewPCG(seed, 1)), 400)
				frames += f
				total += n
				s.Stop()
			}
			w := &countingWriter{}
			s := gameScreen(b, p, w, 99)
			rng := rand.New(rand.NewPCG(99, 1))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				step(s, w, rng)
			}
			b.StopTimer()
			b.ReportMetric(float64(total)/float64(frames), "bytes/frame")
			for _, k := range []string{"sgr", "moves", "spaces", "text", "erase"} {
				b.ReportMetric(float64(kinds[k])/float64(frames), k+"-B/frame")
			}
		})
	}
}
