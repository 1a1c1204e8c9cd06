package ai

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
)

func TestPlayGamesReport(t *testing.T) {
	var progress []GameReport
	cfg := RunConfig{Games: 4, Seed: 40, Size: 3, Workers: 2, Budget: fixedDepth(1),
		Progress: func(g GameReport) { progress = append(progress, g) }}
	r, err := PlayGames(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Games) != cfg.Games {
		t.Fatalf("got %d games, want %d", len(r.Games), cfg.Games)
	}
	slices.SortFunc(progress, func(a, b GameReport) int { return int(a.Seed) - int(b.Seed) })
	if !slices.Equal(progress, r.Games) {
		t.Errorf("progress reported %+v, the report has %+v", progress, r.Games)
	}
	for i, g := range r.Games {
		// Game i is engine.PCG.NewGame(size, seed+i) played by the same search:
		// replaying it alone must give the same game.
		want := playSeeded(t, cfg.Size, cfg.Seed+uint64(i), cfg.Budget, 1<<30)
		if g.Seed != cfg.Seed+uint64(i) || g.Score != want.Score() || g.MaxTile != want.MaxTile() || g.Moves != want.Moves() {
			t.Errorf("game %d: %+v, want seed %d score %d max tile %d moves %d",
				i, g, cfg.Seed+uint64(i), want.Score(), want.MaxTile(), want.Moves())
		}
		if g.Seconds <= 0 {
			t.Errorf("game %d: seconds = %v", i, g.Seconds)
		}
	}
	if r.MovesPerSecond <= 0 || r.ThinkMsP50 <= 0 || r.ThinkMsP99 < r.ThinkMsP50 {
		t.Errorf("summary: %+v", r)
	}
}

// TestReportJSON pins the `ssh2048 ai --json` contract: these exact keys.
func TestReportJSON(t *testing.T) {
	r := Report{
		Games:          []GameReport{{Seed: 1, Score: 2, MaxTile: 4, Moves: 5, Seconds: 0.5}},
		MovesPerSecond: 10, ThinkMsP50: 1, ThinkMsP99: 2,
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"games":[{"seed":1,"score":2,"max_tile":4,"moves":5,"seconds":0.5}],"moves_per_second":10,"think_ms_p50":1,"think_ms_p99":2}`
	if string(data) != want {
		t.Errorf("JSON:\n got %s\nwant %s", data, want)
	}
}

func TestPlayGamesBadConfig(t *testing.T) {
	ctx := context.Background()
	if _, err := PlayGames(ctx, RunConfig{Games: 1, Size: 9}); !errors.Is(err, engine.ErrSize) {
		t.Errorf("size 9: err = %v, want engine.ErrSize", err)
	}
	if _, err := PlayGames(ctx, RunConfig{Games: -1}); err == nil {
		t.Error("negative game count accepted")
	}
	r, err := PlayGames(ctx, RunConfig{Games: 0})
	if err != nil || len(r.Games) != 0 {
		t.Errorf("zero games: %+v, %v", r, err)
	}
}

func TestPlayGamesStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := PlayGames(ctx, RunConfig{Games: 3, Size: 4})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if len(r.Games) != 0 {
		t.Errorf("played %d games with a cancelled context", len(r.Games))
	}
}

func TestPercentileMs(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 200; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		durations []time.Duration
		p         int
		want      float64
	}{
		{d, 50, 100}, {d, 99, 198}, {d, 100, 200}, {d[:1], 99, 1}, {nil, 50, 0},
	} {
		if got := percentileMs(tc.durations, tc.p); got != tc.want {
			t.Errorf("p%d of %d durations = %v, want %v", tc.p, len(tc.durations), got, tc.want)
		}
	}
}
