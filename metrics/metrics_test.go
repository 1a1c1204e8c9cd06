package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/store"
)

// The observers the parts of the server name.
var (
	_ server.Observer = (*Metrics)(nil)
	_ store.Observer  = (*Metrics)(nil)
)

func TestMetricsRecordAndExpose(t *testing.T) {
	m := New()
	m.Watch(Sources{
		Connections: func() int { return 7 },
		Games: func() game.Stats {
			return game.Stats{Playing: 3, Spectators: 2}
		},
		Races: func() race.Stats {
			return race.Stats{Races: [race.Finished]int{1, 0, 4}, Rooms: 1}
		},
		AIQueue: func() (int, int) { return 1, 5 },
	})
	m.Refused("rate")
	m.Refused("rate")
	m.SessionOpened("game")
	m.SessionOpened("scores")
	m.SessionClosed("scores")
	m.KeyToFrame(3 * time.Millisecond)
	m.Committed(12, 2*time.Millisecond)
	m.Waited(4 * time.Millisecond)
	m.MoveStored()
	m.Failed("commit")
	m.Searched(ai.Hint, 30*time.Millisecond)
	m.Request("leaderboard", 200)
	m.Limited()

	for name, c := range map[string]struct {
		got, want float64
	}{
		"refused rate":   {testutil.ToFloat64(m.refused.WithLabelValues("rate")), 2},
		"refused full":   {testutil.ToFloat64(m.refused.WithLabelValues("full")), 0},
		"sessions game":  {testutil.ToFloat64(m.sessionsOpen.WithLabelValues("game")), 1},
		"sessions score": {testutil.ToFloat64(m.sessionsOpen.WithLabelValues("scores")), 0},
		"scores total":   {testutil.ToFloat64(m.sessionsTotal.WithLabelValues("scores")), 1},
		"moves":          {testutil.ToFloat64(m.movesCommitted), 1},
		"db errors":      {testutil.ToFloat64(m.dbErrors.WithLabelValues("commit")), 1},
		"http":           {testutil.ToFloat64(m.httpRequests.WithLabelValues("leaderboard", "200")), 1},
		"limited":        {testutil.ToFloat64(m.httpLimited), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", name, c.got, c.want)
		}
	}

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, line := range []string{
		"ssh2048_connections_open 7",
		`ssh2048_connections_refused_total{reason="rate"} 2`,
		"ssh2048_games_in_play 3",
		"ssh2048_spectators 2",
		`ssh2048_races{phase="running"} 4`,
		`ssh2048_ai_queue_length{priority="autoplay"} 5`,
		"ssh2048_keystroke_to_frame_seconds_count 1",
		"ssh2048_db_commit_group_size_sum 12",
		"ssh2048_db_write_duration_seconds_count 1",
		`ssh2048_ai_search_duration_seconds_count{priority="hint"} 1`,
		"ssh2048_moves_committed_total 1",
		"go_goroutines ",
	} {
		if !strings.Contains(string(body), line) {
			t.Errorf("/metrics lacks %q", line)
		}
	}
}

// TestMetricsLint: names, units and help follow Prometheus' conventions,
// as promlint checks them.
func TestMetricsLint(t *testing.T) {
	m := New()
	m.Watch(Sources{Connections: func() int { return 0 }, Games: func() game.Stats { return game.Stats{} },
		Races: func() race.Stats { return race.Stats{} }, AIQueue: func() (int, int) { return 0, 0 }})
	m.SessionOpened("game")
	m.Request("metrics", 200)
	problems, err := testutil.GatherAndLint(m.Registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "ssh2048_") {
			t.Errorf("%s: %s", p.Metric, p.Text)
		}
	}
}

// TestMetricsNil: a nil *Metrics is a valid observer that records nothing.
func TestMetricsNil(t *testing.T) {
	var m *Metrics
	m.Refused("full")
	m.SessionOpened("game")
	m.SessionClosed("game")
	m.KeyToFrame(time.Millisecond)
	m.Committed(1, time.Millisecond)
	m.Waited(time.Millisecond)
	m.MoveStored()
	m.Failed("write")
	m.Searched(ai.Autoplay, time.Millisecond)
	m.Request("x", 200)
	m.Limited()
}
