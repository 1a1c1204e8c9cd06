package tui

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
)

// boardTap is a guest store that lets a benchmark see the board after
// each move, to pick a key that will change it.
type boardTap struct {
	*GuestStore
	mu    sync.Mutex
	board engine.Board
}

func (s *boardTap) Open(ctx context.Context, size int, fresh bool) (Play, error) {
	g, err := s.GuestStore.Open(ctx, size, fresh)
	if err != nil {
		return nil, err
	}
	s.set(g.Board())
	return tapGame{g, s}, nil
}

type tapGame struct {
	Play
	tap *boardTap
}

func (g tapGame) Move(ctx context.Context, d engine.Direction) (engine.Result, error) {
	res, err := g.Play.Move(ctx, d)
	g.tap.set(g.Board())
	return res, err
}

func (s *boardTap) set(b engine.Board) {
	s.mu.Lock()
	s.board = b
	s.mu.Unlock()
}

func (s *boardTap) get() engine.Board {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.board
}

// BenchmarkKeystrokeToFrame types one arrow key at a time into a real
// Bubble Tea program (in-process, no SSH) and waits for the frame that
// shows it. It reports the p50 and p99 time from key to frame and the
// bytes the renderer wrote for the frame: Bubble Tea draws on a ticker, so
// the wait is up to one frame interval, and it writes only what changed.
func BenchmarkKeystrokeToFrame(b *testing.B) {
	for _, fps := range []int{30, 60, 120} {
		b.Run(fmt.Sprintf("fps=%d", fps), func(b *testing.B) {
			tap := &boardTap{GuestStore: NewGuestStore(nil, func() uint64 { return 1 })}
			in, typing := io.Pipe()
			out := &syncBuffer{}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- Run(Options{Store: tap, Player: "bench", Context: ctx},
					tea.WithInput(in), tea.WithOutput(out), tea.WithFPS(fps),
					tea.WithColorProfile(colorprofile.TrueColor), tea.WithWindowSize(80, 24),
					tea.WithoutSignalHandler())
			}()
			defer func() {
				cancel()
				_ = typing.Close()
				<-done
			}()
			waitGrowth(b, out, 0, 10*time.Second) // first frame
			time.Sleep(100 * time.Millisecond)
			arrows := map[engine.Direction]string{engine.Up: "\x1b[A", engine.Down: "\x1b[B", engine.Right: "\x1b[C", engine.Left: "\x1b[D"}
			var lat []time.Duration
			var bytes int
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				key := "n" // a new game when nothing moves (the game is over)
				board := tap.get()
				for _, d := range []engine.Direction{engine.Left, engine.Down, engine.Right, engine.Up} {
					if c := board; func() bool { _, m := c.Move(d); return m }() {
						key = arrows[d]
						break
					}
				}
				before := out.len()
				start := time.Now()
				if _, err := io.WriteString(typing, key); err != nil {
					b.Fatal(err)
				}
				waitGrowth(b, out, before, 5*time.Second)
				lat = append(lat, time.Since(start))
				// Let the frame finish and the ticker pass, so each key is
				// one frame of its own, then a part of an interval more so
				// that keys land at every phase of the ticker.
				interval := time.Second / time.Duration(fps)
				time.Sleep(2*interval + time.Duration(rand.Int64N(int64(interval))))
				bytes += out.len() - before
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(bytes)/float64(len(lat)), "bytes/frame")
		})
	}
}

func (s *syncBuffer) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

func waitGrowth(b *testing.B, out *syncBuffer, from int, limit time.Duration) {
	b.Helper()
	deadline := time.Now().Add(limit)
	for out.len() <= from {
		if time.Now().After(deadline) {
			b.Fatal("no frame")
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// BenchmarkIdleSession measures what an idle session costs: 50 programs
// sit with nothing to do while their renderers tick; the metric is CPU
// time per session per second of wall time.
func BenchmarkIdleSession(b *testing.B) {
	const sessions = 50
	for _, fps := range []int{30, 60, 120} {
		b.Run(fmt.Sprintf("fps=%d", fps), func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var pipes []*io.PipeWriter
			for range sessions {
				in, w := io.Pipe()
				pipes = append(pipes, w)
				wg.Add(1)
				go func() {
					defer wg.Done()
					_ = Run(Options{Store: NewGuestStore(nil, nil), Context: ctx},
						tea.WithInput(in), tea.WithOutput(io.Discard), tea.WithFPS(fps),
						tea.WithColorProfile(colorprofile.TrueColor), tea.WithWindowSize(80, 24),
						tea.WithoutSignalHandler())
				}()
			}
			time.Sleep(500 * time.Millisecond) // past start-up
			var cpu time.Duration
			var wall time.Duration
			b.ResetTimer()
			for b.Loop() {
				c0, t0 := cpuTime(b), time.Now()
				time.Sleep(time.Second)
				cpu += cpuTime(b) - c0
				wall += time.Since(t0)
			}
			b.StopTimer()
			cancel()
			for _, p := range pipes {
				_ = p.Close()
			}
			wg.Wait()
			b.ReportMetric(float64(cpu.Microseconds())/wall.Seconds()/sessions, "cpu-µs/s/session")
		})
	}
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
