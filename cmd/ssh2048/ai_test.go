package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestAISubcommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"ai", "--games", "2", "--size", "3", "--seed", "5", "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("ai --json: exit %d, stderr %q", code, errOut.String())
	}
	var report struct {
		Games []struct {
			Seed    *uint64 `json:"seed"`
			Score   *int    `json:"score"`
			MaxTile *int    `json:"max_tile"`
			Moves   *int    `json:"moves"`
			Seconds *float64
		} `json:"games"`
		MovesPerSecond *float64 `json:"moves_per_second"`
		ThinkP50       *float64 `json:"think_ms_p50"`
		ThinkP99       *float64 `json:"think_ms_p99"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("ai --json output %q: %v", out.String(), err)
	}
	if len(report.Games) != 2 || report.MovesPerSecond == nil || report.ThinkP50 == nil || report.ThinkP99 == nil {
		t.Fatalf("ai --json: %s", out.String())
	}
	for i, g := range report.Games {
		if g.Seed == nil || *g.Seed != uint64(5+i) || g.Score == nil || *g.Score <= 0 || g.MaxTile == nil || *g.MaxTile < 16 ||
			g.Moves == nil || *g.Moves <= 0 || g.Seconds == nil {
			t.Fatalf("game %d: %s", i, out.String())
		}
	}

	out.Reset()
	if code := run([]string{"ai", "--games", "1", "--size", "3"}, &out, &errOut); code != 0 {
		t.Fatalf("ai: exit %d", code)
	}
	if text := out.String(); !strings.Contains(text, "seed 1 ") || !strings.Contains(text, "moves/s") ||
		!strings.HasPrefix(text, "1 game of 3×3") || !strings.Contains(text, "\n1 game:") {
		t.Fatalf("ai text output:\n%s", text)
	}

	for _, bad := range [][]string{{"ai", "--size", "9"}, {"ai", "--games", "0"}, {"ai", "extra"}} {
		if code := run(bad, &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}
