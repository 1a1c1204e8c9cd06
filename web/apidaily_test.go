package web

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/wire"
)

// TestAPIDailyIsScoresDailyJSON: docs/bot-protocol.md, `scores
// --json`: "`GET /api/scores/SIZE/KIND?limit=K` (...) and `GET
// /api/daily/SIZE?day=YYYY-MM-DD` answer with exactly this array", whose
// rows of `scores --daily` carry `contest` ("daily:YYYY-MM-DD") and, for a
// day that is over, `seed`. /api/daily's rows used to carry neither.
func TestAPIDailyIsScoresDailyJSON(t *testing.T) {
	w := newWorld(t)
	day := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	playDaily(t, w.at(day), w.player(t, "ann"), 3)
	ts := w.site(t, Config{Games: w.at(day.Add(24 * time.Hour))})
	_, body := get(t, ts, "/api/daily/3?day=2026-03-10")
	var rows []wire.ScoreEntry
	if err := json.Unmarshal([]byte(body), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("/api/daily/3: %v %s", err, body)
	}
	if rows[0].Contest != "daily:2026-03-10" || rows[0].Seed == "" {
		t.Errorf("a row of /api/daily/3?day=2026-03-10, the day after: contest %q, seed %q; `scores --daily --json` gives contest \"daily:2026-03-10\" and the day's seed\n%s",
			rows[0].Contest, rows[0].Seed, body)
	}
}
