package ai

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
)

func newTestPool(t testing.TB, workers int, opts ...PoolOption) *Pool {
	t.Helper()
	p := NewPool(workers, opts...)
	t.Cleanup(p.Close)
	return p
}

func TestQueueServesHintsFirstInOrder(t *testing.T) {
	var q requestQueue
	reqs := make([]*request, 6)
	for i := range reqs {
		reqs[i] = &request{}
	}
	q.push(Autoplay, reqs[0])
	q.push(Autoplay, reqs[1])
	q.push(Hint, reqs[2])
	q.push(Autoplay, reqs[3])
	q.push(Hint, reqs[4])
	want := []*request{reqs[2], reqs[4], reqs[0], reqs[1], reqs[3]}
	for i, w := range want {
		got, ok := q.pop(true)
		if !ok || got != w {
			t.Fatalf("pop %d: got request %d, want %d", i, slices.Index(reqs, got), slices.Index(reqs, w))
		}
	}
	if _, ok := q.pop(true); ok {
		t.Error("pop from an empty queue succeeded")
	}
}

func TestPoolSuggest(t *testing.T) {
	p := newTestPool(t, 0)
	ctx := context.Background()
	for _, text := range []string{
		"2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0",
		"2 4 8/0 0 0/0 0 2",
		"2 0 0 0 0/0 0 0 0 0/0 0 0 0 0/0 0 0 0 0/0 0 0 0 4",
	} {
		b := mustParse(t, text)
		for _, prio := range []Priority{Hint, Autoplay} {
			d, err := p.Suggest(ctx, b, prio)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			if _, moved := b.Move(d); !moved {
				t.Errorf("%s: suggested %v, which does not move", text, d)
			}
		}
	}
	if _, err := p.Suggest(ctx, mustParse(t, "2 4 2/4 2 4/2 4 2"), Hint); !errors.Is(err, ErrNoMoves) {
		t.Errorf("finished game: err = %v, want ErrNoMoves", err)
	}
	if _, err := p.Suggest(ctx, engine.Board{}, Hint); !errors.Is(err, engine.ErrSize) {
		t.Errorf("zero board: err = %v, want engine.ErrSize", err)
	}
	if _, err := p.Suggest(ctx, mustParse(t, "2 2 0/0 0 0/0 0 0"), Priority(7)); err == nil {
		t.Error("unknown priority accepted")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Suggest(cancelled, mustParse(t, "2 2 0/0 0 0/0 0 0"), Hint); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
}

func TestPoolClose(t *testing.T) {
	p := NewPool(1)
	p.Close()
	p.Close() // idempotent
	if _, err := p.Suggest(context.Background(), mustParse(t, "2 2 0/0 0 0/0 0 0"), Hint); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: err = %v, want ErrClosed", err)
	}
}

// autoplayLoops starts n goroutines that each play a game through the pool
// at Autoplay priority, starting a new game whenever one ends, until the
// test ends. It returns a function that reports the moves played so far.
func autoplayLoops(t testing.TB, p *Pool, n int) func() int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	moves := 0
	for i := range n {
		wg.Go(func() {
			seed := uint64(1000 * i)
			for ctx.Err() == nil {
				g, _ := engine.PCG.NewGame(4, seed)
				seed++
				for !g.Over() {
					d, err := p.Suggest(ctx, g.Board(), Autoplay)
					if err != nil {
						if ctx.Err() == nil {
							t.Errorf("autoplay %d: %v", i, err)
						}
						return
					}
					g.Move(d)
					mu.Lock()
					moves++
					mu.Unlock()
				}
			}
		})
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	return func() int { mu.Lock(); defer mu.Unlock(); return moves }
}

// measureHints asks for n hints on a mid-game board while the pool is busy
// and returns their latencies, sorted.
func measureHints(t testing.TB, p *Pool, n int) []time.Duration {
	t.Helper()
	boards := gameBoards(t, 4, 3, 40)
	lat := make([]time.Duration, 0, n)
	for i := range n {
		b := boards[i%len(boards)]
		start := time.Now()
		d, err := p.Suggest(context.Background(), b, Hint)
		lat = append(lat, time.Since(start))
		if err != nil {
			t.Fatalf("hint %d: %v", i, err)
		}
		if _, moved := b.Move(d); !moved {
			t.Fatalf("hint %d: suggested %v, which does not move %s", i, d, b.String())
		}
		time.Sleep(3 * time.Millisecond) // let the autoplay queue refill
	}
	slices.Sort(lat)
	return lat
}

// TestHintUnderAutoplayLoad runs 50 autoplay games against the pool and asks
// for hints meanwhile. A hint waits at most for one running search to end
// plus its own search, about two budgets, however long the autoplay queue
// is, and less when it preempts an autoplay search. The bound asserted is
// loose (the race detector and a shared machine slow everything down);
// BenchmarkHintUnderAutoplayLoad reports the real percentiles.
func TestHintUnderAutoplayLoad(t *testing.T) {
	p := newTestPool(t, 0)
	played := autoplayLoops(t, p, 50)
	time.Sleep(50 * time.Millisecond) // let the queue fill up
	lat := measureHints(t, p, 20)
	t.Logf("hint latencies (sorted): %v", lat)
	t.Logf("hint latency with 50 autoplays: min %v, median %v, max %v; %d autoplay moves meanwhile",
		lat[0], lat[len(lat)/2], lat[len(lat)-1], played())
	// One outlier is forgiven up to a second: on a shared 2-core machine the
	// operating system alone can stall a process that long.
	if second, worst := lat[len(lat)-2], lat[len(lat)-1]; second > 250*time.Millisecond || worst > time.Second {
		t.Errorf("slowest of %d hints took %v and %v under autoplay load, want ≤ 250ms (one ≤ 1s)", len(lat), second, worst)
	}
	if played() == 0 {
		t.Error("no autoplay move was played: the load was not there")
	}
}

func BenchmarkHintUnderAutoplayLoad(b *testing.B) {
	p := newTestPool(b, 0)
	autoplayLoops(b, p, 50)
	time.Sleep(50 * time.Millisecond)
	b.ResetTimer()
	lat := measureHints(b, p, max(b.N, 100))
	b.StopTimer()
	b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
	b.ReportMetric(float64(lat[(len(lat)*99+99)/100-1])/1e6, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1])/1e6, "max-ms")
}

func TestPoolWorkersNeverExceedCores(t *testing.T) {
	for _, n := range []int{-1, 0, 1, runtime.NumCPU(), 1000} {
		p := newTestPool(t, n)
		want := runtime.NumCPU()
		if n == 1 {
			want = 1
		}
		if got := len(p.workers); got != want {
			t.Errorf("NewPool(%d): %d workers, want %d", n, got, want)
		}
	}
}

// TestHintPreemptsAutoplay gives the only worker an autoplay search with no
// time bound and a depth that takes it seconds to reach, then asks for a hint:
// the autoplay search must be cut short, and still answer with a legal move.
func TestHintPreemptsAutoplay(t *testing.T) {
	p := newTestPool(t, 1, WithBudget(Budget{MaxDepth: 30}))
	board := mustParse(t, "2 4 8 16/4 8 16 32/0 2 0 4/0 0 2 0")
	type outcome struct {
		dir engine.Direction
		err error
	}
	done := make(chan outcome, 1)
	autoCtx, stopAuto := context.WithCancel(context.Background())
	t.Cleanup(stopAuto) // runs before the pool's Close: lets the worker go
	go func() {
		d, err := p.Suggest(autoCtx, board, Autoplay)
		done <- outcome{d, err}
	}()
	for busy := false; !busy; {
		time.Sleep(time.Millisecond)
		p.mu.Lock()
		busy = p.workers[0].busy
		p.mu.Unlock()
	}
	// The hint's own search is as unbounded; its context ends it.
	hintCtx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	go p.Suggest(hintCtx, board, Hint) //nolint:errcheck // only its arrival matters here

	select {
	case auto := <-done:
		if auto.err != nil {
			t.Fatalf("autoplay: %v", auto.err)
		}
		if _, moved := board.Move(auto.dir); !moved {
			t.Errorf("preempted autoplay suggested %v, which does not move", auto.dir)
		}
	case <-time.After(1500 * time.Millisecond): // uncut, it runs for seconds
		t.Fatal("the autoplay search was not cut short by a waiting hint")
	}
}

// TestPoolSearchPanic: a search that panics fails that request with a
// *PanicError carrying the stack; the worker goes on and serves the next
// request, and the process lives.
func TestPoolSearchPanic(t *testing.T) {
	var calls sync.Mutex
	n := 0
	boom := func(s *Searcher, ctx context.Context, b engine.Board, budget Budget) (Result, error) {
		calls.Lock()
		n++
		first := n == 1
		calls.Unlock()
		if first {
			var cells []int
			_ = cells[b.Size()] // an index out of range: a real runtime panic
		}
		return s.Search(ctx, b, budget)
	}
	p := newTestPool(t, 1, func(p *Pool) { p.search = boom })
	g, err := engine.PCG.NewGame(4, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := g.Board()
	_, err = p.Hint(context.Background(), b)
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Hint: got %v, want a *PanicError", err)
	}
	if !strings.Contains(string(pe.Stack), "TestPoolSearchPanic") {
		t.Errorf("the stack does not show where it panicked:\n%s", pe.Stack)
	}
	if _, err := p.Hint(context.Background(), b); err != nil {
		t.Fatalf("the next hint after a panic: %v", err)
	}
}
