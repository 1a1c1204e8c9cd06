package ai

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/ssh2048/ssh2048/engine"
)

// RunConfig describes a headless run of seeded games.
type RunConfig struct {
	Games   int    // number of games; game i is engine.PCG.NewGame(Size, Seed+i)
	Seed    uint64 // seed of the first game
	Size    int    // board size; 0 means 4
	Workers int    // games played at once, one search each; 0 means runtime.NumCPU()
	// Budget bounds each search; the zero value means DefaultBudget().
	Budget Budget
	// Progress, if set, is called as each game ends, in the order they end,
	// one call at a time (for a line per game while the run goes on).
	Progress func(GameReport)
}

// GameReport is the outcome of one game.
type GameReport struct {
	Seed    uint64  `json:"seed"`
	Score   int     `json:"score"`
	MaxTile int     `json:"max_tile"`
	Moves   int     `json:"moves"`
	Seconds float64 `json:"seconds"`
}

// Report is the outcome of a run. Its JSON form is the contract of
// `ssh2048 ai --json`.
type Report struct {
	Games []GameReport `json:"games"` // in seed order
	// MovesPerSecond is all moves of all games over the run's wall-clock
	// time (so it grows with Workers).
	MovesPerSecond float64 `json:"moves_per_second"`
	// ThinkMsP50 and ThinkMsP99 are percentiles of the time one search took,
	// in milliseconds, over every move of every game.
	ThinkMsP50 float64 `json:"think_ms_p50"`
	ThinkMsP99 float64 `json:"think_ms_p99"`
}

// PlayGames plays cfg.Games seeded games to the end, cfg.Workers at a time,
// each move chosen by a search at cfg.Budget. When ctx is done it stops and
// returns the games finished so far with ctx's error.
func PlayGames(ctx context.Context, cfg RunConfig) (Report, error) {
	if cfg.Games < 0 {
		return Report{}, fmt.Errorf("play games: negative game count %d", cfg.Games)
	}
	if cfg.Size == 0 {
		cfg.Size = 4
	}
	if _, err := engine.NewBoard(cfg.Size); err != nil {
		return Report{}, fmt.Errorf("play games: %w", err)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.Budget == (Budget{}) {
		cfg.Budget = DefaultBudget()
	}

	var (
		mu     sync.Mutex
		games  = make([]GameReport, 0, cfg.Games)
		thinks []time.Duration
		next   int
		wg     sync.WaitGroup
	)
	start := time.Now()
	for range min(cfg.Workers, max(cfg.Games, 1)) {
		wg.Go(func() {
			s := NewSearcher()
			var local []time.Duration
			for ctx.Err() == nil {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= cfg.Games {
					break
				}
				g, ok := playGame(ctx, s, cfg.Size, cfg.Seed+uint64(i), cfg.Budget, &local)
				if !ok {
					break
				}
				mu.Lock()
				games = append(games, g)
				if cfg.Progress != nil {
					cfg.Progress(g)
				}
				mu.Unlock()
			}
			mu.Lock()
			thinks = append(thinks, local...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	slices.SortFunc(games, func(a, b GameReport) int {
		switch {
		case a.Seed < b.Seed:
			return -1
		case a.Seed > b.Seed:
			return 1
		}
		return 0
	})
	r := Report{Games: games}
	moves := 0
	for _, g := range games {
		moves += g.Moves
	}
	if elapsed > 0 {
		r.MovesPerSecond = float64(moves) / elapsed.Seconds()
	}
	slices.Sort(thinks)
	r.ThinkMsP50 = percentileMs(thinks, 50)
	r.ThinkMsP99 = percentileMs(thinks, 99)
	if err := ctx.Err(); err != nil {
		return r, fmt.Errorf("play games: stopped after %d of %d: %w", len(games), cfg.Games, err)
	}
	return r, nil
}

// playGame plays one game to the end, appending each search's time to
// thinks. It reports false if ctx ended the game early.
func playGame(ctx context.Context, s *Searcher, size int, seed uint64, budget Budget, thinks *[]time.Duration) (GameReport, bool) {
	start := time.Now()
	// PCG, the first generator, so that a seed names the same game as in
	// every figure measured so far (docs/ai.md).
	g, err := engine.PCG.NewGame(size, seed)
	if err != nil {
		panic(err) // the size was validated by PlayGames
	}
	for !g.Over() {
		res, err := s.Search(ctx, g.Board(), budget)
		if err != nil || ctx.Err() != nil {
			return GameReport{}, false
		}
		*thinks = append(*thinks, res.Elapsed)
		if !g.Move(res.Dir).Moved {
			panic(fmt.Sprintf("ai: search suggested %v, which does not move %s", res.Dir, g.Board().String()))
		}
	}
	return GameReport{
		Seed:    seed,
		Score:   g.Score(),
		MaxTile: g.MaxTile(),
		Moves:   g.Moves(),
		Seconds: time.Since(start).Seconds(),
	}, true
}

// percentileMs returns the nearest-rank p-th percentile of sorted durations
// in milliseconds, 0 for none.
func percentileMs(sorted []time.Duration, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 · n)
	rank = min(max(rank, 1), len(sorted))
	return float64(sorted[rank-1]) / float64(time.Millisecond)
}
