package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// DurableWriters is how many sessions BenchDurableWrites runs: a busy
// node's players, each with a move in flight most of the time.
const DurableWriters = 1000

// BenchDurableWrites is the durable write path alone, the same for every
// store: DurableWriters sessions, each its own 8×8 game, committing moves
// through AppendMove on the store open gives (durable: a real file with
// its syncs, a real server with fsync on). One op is one move. It reports
// the moves committed per second, the p99 commit wait (from the call to
// its acknowledgement, the commit's flush included), the moves per group
// commit (commits counts the store's group commits) and the process's
// CPU time per move.
//
// Three loads: "closed", each session moving again as soon as its move is
// acknowledged (the ceiling; by Little's law its mean wait is the number
// of sessions over the rate, so its p99 says nothing of a paced load);
// "paced", each session moving every 20 ms on average (jittered), 50,000
// moves a second offered: the moves/s it reaches and the p99 wait it
// takes there; and "ranked", a server's mix at a rate two cores keep up
// with: each session moves every 100 ms (10,000 moves a second offered)
// and reads its rank (PlayerRank, as the game's header does) after every
// fifth move, reporting the rank reads' p99 too (rank-p99-ms).
// BenchmarkDurableFloor, in this package's tests, runs the paced load
// with no database: the least wait a store could take on the machine,
// and what the store's CPU alone adds to it.
func BenchDurableWrites(b *testing.B, open func(b *testing.B) (s store.Store, commits func() int64)) {
	b.Run("closed", func(b *testing.B) { benchDurable(b, open, 0, 0) })
	b.Run("paced", func(b *testing.B) { benchDurable(b, open, DurableWriters*time.Second/50_000, 0) })
	b.Run("ranked", func(b *testing.B) { benchDurable(b, open, DurableWriters*time.Second/10_000, 5) })
}

// benchDurable runs BenchDurableWrites with each session waiting about
// period between moves (0: none) and reading its rank after every
// rankEvery moves (0: never).
func benchDurable(b *testing.B, open func(b *testing.B) (store.Store, func() int64), period time.Duration, rankEvery int) {
	ctx := context.Background()
	s, commits := open(b)
	games := make([]*store.SavedGame, DurableWriters)
	var setup sync.WaitGroup
	for w := range 50 { // concurrently: a thousand players, grouped
		setup.Go(func() {
			for i := w; i < DurableWriters; i += 50 {
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
	var ranks [][]time.Duration
	if rankEvery > 0 {
		ranks = make([][]time.Duration, len(games))
	}
	commits0, cpu0 := commits(), cpuTime(b)
	b.ResetTimer()
	waits := runSessions(b, len(games), period, func(i, n int, rng *rand.Rand) (time.Duration, error) {
		var took time.Duration
		var err error
		if games[i], took, err = timedMove(ctx, s, games[i], rng); err != nil || rankEvery == 0 || n%rankEvery != 0 {
			return took, err
		}
		start := time.Now()
		if _, err := s.PlayerRank(ctx, games[i].PlayerID, games[i].Size, store.KindHuman); err != nil {
			return took, err
		}
		ranks[i] = append(ranks[i], time.Since(start))
		return took, nil
	})
	b.StopTimer()
	report(b, waits, commits()-commits0, cpuTime(b)-cpu0)
	if rankEvery > 0 {
		all := slices.Concat(ranks...)
		slices.Sort(all)
		if len(all) > 0 {
			b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "rank-p99-ms")
		}
	}
}

// runSessions runs b.N writes over sessions goroutines, each waiting
// about period between its writes (0: not at all), jittered, and the
// sessions' starts spread over a period. write makes session i's nth
// write (from 1) and returns how long it waited for it; runSessions
// returns every write's wait, sorted, and stops at the first error.
func runSessions(b *testing.B, sessions int, period time.Duration, write func(i, n int, rng *rand.Rand) (time.Duration, error)) []time.Duration {
	var (
		next  = make(chan struct{}, b.N)
		mu    sync.Mutex
		waits = make([]time.Duration, 0, b.N)
		wg    sync.WaitGroup
	)
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	for i := range sessions {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 11))
			if period > 0 {
				time.Sleep(time.Duration(rng.Int64N(int64(period)))) // spread the sessions out
			}
			var mine []time.Duration
			for range next {
				took, err := write(i, len(mine)+1, rng)
				if err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, took)
				if period > 0 {
					time.Sleep(period/2 + time.Duration(rng.Int64N(int64(period))) - took)
				}
			}
			mu.Lock()
			waits = append(waits, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(waits)
	return waits
}

// report reports a durable load's sorted waits: the writes a second, the
// p50 and p99 wait, the writes a group commit (of groups) and the CPU
// time a write.
func report(b *testing.B, waits []time.Duration, groups int64, cpu time.Duration) {
	n := len(waits)
	if n == 0 {
		return
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "moves/s")
	b.ReportMetric(float64(waits[n/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(waits[min(n-1, n*99/100)].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(n)/float64(max(groups, 1)), "moves/commit")
	b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/move")
}

// timedMove plays one move of g and times it (the commit included); a game
// with no move left is ended and replaced by a new one first, untimed.
func timedMove(ctx context.Context, s store.Store, g *store.SavedGame, rng *rand.Rand) (*store.SavedGame, time.Duration, error) {
	d, ok := movingDirection(g.Engine, rng)
	if !ok {
		var err error
		if err = s.EndGame(ctx, g.ID, fenced(g)); err == nil {
			g, err = s.NewGame(ctx, g.PlayerID, g.Size, store.KindHuman)
		}
		if err != nil {
			return g, 0, err
		}
		d, _ = movingDirection(g.Engine, rng)
	}
	seq := g.Engine.Moves()
	g.Engine.Move(d)
	start := time.Now()
	err := s.AppendMove(ctx, g.ID, seq, d, fenced(g))
	return g, time.Since(start), err
}

// fenced is g's state, carrying the token g was claimed with.
func fenced(g *store.SavedGame) store.MoveState {
	st := store.StateOf(g.Engine)
	st.Fence = g.Fence
	return st
}

// cpuTime is the process's CPU time so far.
func cpuTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
