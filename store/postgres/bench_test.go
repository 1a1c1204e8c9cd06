package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
)

// BenchmarkAppendMove: moves committed per second through one node's
// group-commit writer with 64 sessions each playing as fast as its
// acknowledgements come back, and the p99 of one AppendMove (as package
// store/sqlite's benchmark of the same name, for SQLite).
func BenchmarkAppendMove(b *testing.B) {
	ctx := context.Background()
	s := openStore(b, pgtest.Database(b))
	const writers = 64
	games := make(chan *store.SavedGame, writers)
	for i := range writers {
		p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:bench-%d", i), "ssh-ed25519", "bench")
		if err != nil {
			b.Fatal(err)
		}
		g, err := s.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
		if err != nil {
			b.Fatal(err)
		}
		games <- g
	}
	var lat latencies
	b.SetParallelism((writers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		g := <-games
		rng := rand.New(rand.NewPCG(uint64(g.ID), 1))
		var mine []time.Duration
		for pb.Next() {
			d, ok := someMove(g.Engine)
			if !ok {
				b.Error("game over")
				return
			}
			_ = rng
			g.Engine.Move(d)
			st := store.StateOf(g.Engine)
			st.Fence = g.Fence
			start := time.Now()
			if err := s.AppendMove(ctx, g.ID, g.Engine.Moves()-1, d, st); err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, time.Since(start))
		}
		lat.add(mine)
	})
	lat.report(b, "moves/s")
}

// latencies gathers the time each operation took from the goroutines of
// b.RunParallel.
type latencies struct {
	mu  sync.Mutex
	all []time.Duration
}

func (l *latencies) add(mine []time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, mine...)
}

// report stops b's timer and reports the operations a second, in unit,
// and the p99 of one.
func (l *latencies) report(b *testing.B, unit string) {
	b.StopTimer()
	slices.Sort(l.all)
	if n := len(l.all); n > 0 {
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), unit)
		b.ReportMetric(float64(l.all[n*99/100].Microseconds())/1000, "p99-ms")
	}
}
