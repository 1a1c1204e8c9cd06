package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
)

// BenchmarkDurableWrites is the durable write path alone, as store/sqlite's
// benchmark of the same name: 1,000 sessions, each its own 8×8 game, each
// committing moves through one node's AppendMove as fast as its
// acknowledgements come back, on a real PostgreSQL (pgtest's: fsync and
// synchronous_commit on, PostgreSQL's defaults). One op is one move. It
// reports moves/s, the p99 commit wait and the moves per group commit.
func BenchmarkDurableWrites(b *testing.B) {
	ctx := context.Background()
	s := openStore(b, pgtest.Database(b))
	const writers = 1000
	games := make([]*store.SavedGame, writers)
	var setup sync.WaitGroup
	for w := range 50 {
		setup.Go(func() {
			for i := w; i < writers; i += 50 {
				p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:durable-%d", i), "ssh-ed25519", "durable")
				if err == nil {
					games[i], err = s.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	setup.Wait()
	if b.Failed() {
		return
	}
	var (
		next      = make(chan struct{}, b.N)
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, b.N)
		wg        sync.WaitGroup
	)
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	commits0 := postgres.Commits(s)
	b.ResetTimer()
	for _, g := range games {
		wg.Go(func() {
			var mine []time.Duration
			for range next {
				d, ok := someMove(g.Engine)
				if !ok { // a new game, untimed
					var err error
					if err = s.EndGame(ctx, g.ID, withFence(g)); err == nil {
						g, err = s.NewGame(ctx, g.PlayerID, g.Size, store.KindHuman)
					}
					if err != nil {
						b.Error(err)
						return
					}
					d, _ = someMove(g.Engine)
				}
				g.Engine.Move(d)
				start := time.Now()
				if err := s.AppendMove(ctx, g.ID, g.Engine.Moves()-1, d, withFence(g)); err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	b.StopTimer()
	n := len(latencies)
	if n == 0 {
		return
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "moves/s")
	b.ReportMetric(float64(latencies[min(n-1, n*99/100)].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(n)/float64(max(postgres.Commits(s)-commits0, 1)), "moves/commit")
}

// withFence is g's state, fenced with its claim.
func withFence(g *store.SavedGame) store.MoveState {
	st := store.StateOf(g.Engine)
	st.Fence = g.Fence
	return st
}
