package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
)

// The tests of this file are of what a visitor meets on a first look:
// links that work, a footer that says how to play here, pages that say
// what they are.

// lockedBuffer is a log that the server's goroutines write and the test
// reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func logTo(b *lockedBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// at is a game service over w's store whose clock stands at t.
func (w *world) at(t time.Time) *game.Service {
	return game.New(w.store, quiet, game.WithClock(func() time.Time { return t }))
}

// TestDailyReplayWaitsForTheDay: while the day runs, a game of its
// challenge is linked from no page, and its replay (page and JSON) is a
// 404 that says why, logged as no error; once the day is over it is
// linked and replayed like any other.
func TestDailyReplayWaitsForTheDay(t *testing.T) {
	w := newWorld(t)
	day := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	ann := w.player(t, "ann")
	id := playDaily(t, w.at(day), ann, 3)
	link := fmt.Sprintf(`href="/game/%d"`, id)
	pages := []string{"/daily/3", fmt.Sprintf("/player/%d", ann.ID)}
	replays := []string{fmt.Sprintf("/game/%d", id), fmt.Sprintf("/api/game/%d", id)}

	var log lockedBuffer
	ts := w.site(t, Config{Games: w.at(day), Logger: logTo(&log)})
	for _, path := range pages {
		resp, body := get(t, ts, path)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "ann") {
			t.Fatalf("%s: status %d: %.300s", path, resp.StatusCode, body)
		}
		if strings.Contains(body, link) {
			t.Errorf("%s links the replay of a game of the day still on", path)
		}
	}
	for _, path := range replays {
		resp, body := get(t, ts, path)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "once the day is over") {
			t.Errorf("%s while the day is on: status %d, want 404 saying why: %.300s", path, resp.StatusCode, body)
		}
	}
	var e apiError
	if _, body := get(t, ts, replays[1]); json.Unmarshal([]byte(body), &e) != nil || e.Error == "" {
		t.Errorf("the JSON route's 404 is not {\"error\": …}: %s", body)
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("a visitor's request for a hidden game logged an error:\n%s", log.String())
	}

	ts = w.site(t, Config{Games: w.at(day.Add(24 * time.Hour)), Logger: logTo(&log)})
	for _, path := range []string{"/daily/3?day=2026-03-10", pages[1]} {
		if _, body := get(t, ts, path); !strings.Contains(body, link) {
			t.Errorf("%s the day after: the replay is not linked", path)
		}
	}
	for _, path := range replays {
		if resp, body := get(t, ts, path); resp.StatusCode != http.StatusOK {
			t.Errorf("%s the day after: status %d: %.300s", path, resp.StatusCode, body)
		}
	}
}

// TestEarlierDays: the daily page links the earlier days that have games
// of its size, not every day of the week before.
func TestEarlierDays(t *testing.T) {
	w := newWorld(t)
	played := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	playDaily(t, w.at(played), w.player(t, "ann"), 3)
	ts := w.site(t, Config{Games: w.at(played.AddDate(0, 0, 3))})

	linked := regexp.MustCompile(`\?day=(\d{4}-\d{2}-\d{2})`)
	for path, want := range map[string][]string{
		"/daily/3": {"2026-03-10", "2026-03-13"}, // the day with a game, and today's own links
		"/daily/4": {"2026-03-13"},               // no games of that size
	} {
		_, body := get(t, ts, path)
		days := map[string]bool{}
		for _, m := range linked.FindAllStringSubmatch(body, -1) {
			days[m[1]] = true
		}
		for _, d := range want {
			if !days[d] {
				t.Errorf("%s does not link %s", path, d)
			}
			delete(days, d)
		}
		for d := range days {
			t.Errorf("%s links %s, a day without games", path, d)
		}
	}
}

// getAs fetches path as a browser that reached the site as host.
func getAs(t *testing.T, ts *httptest.Server, host, path string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return b.String()
}

// TestFooterSaysHowToPlayHere: the footer's command has the SSH port the
// server listens on and the host the visitor reached (a host it cannot
// vouch for is "this host"), page by page, cached pages included; and the
// /api/ it points to lists the JSON routes.
func TestFooterSaysHowToPlayHere(t *testing.T) {
	w := newWorld(t)
	ts := w.site(t, Config{SSHPort: 2222})
	for _, tc := range []struct{ host, path, want string }{
		{"play.example.org:8080", "/", "<code>ssh -p 2222 play.example.org</code>"},
		{"other.example.org", "/", "<code>ssh -p 2222 other.example.org</code>"}, // the same cached page, another host
		{"127.0.0.1:8080", "/races", "<code>ssh -p 2222 127.0.0.1</code>"},
		{"[2001:db8::1]:8080", "/live", "<code>ssh -p 2222 2001:db8::1</code>"},
		{"bad_host!:80", "/scores/4/human", "<code>ssh -p 2222 <var>this host</var></code>"},
	} {
		if body := getAs(t, ts, tc.host, tc.path); !strings.Contains(body, tc.want) {
			t.Errorf("%s as %s: the footer lacks %s:\n%s", tc.path, tc.host, tc.want, body)
		}
	}
	if body := getAs(t, w.site(t, Config{SSHPort: 22}), "example.org", "/"); !strings.Contains(body, "<code>ssh example.org</code>") {
		t.Errorf("port 22: the footer does not say plain ssh HOST:\n%s", body)
	}

	resp, body := get(t, ts, "/api/")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/api/: status %d", resp.StatusCode)
	}
	for _, route := range []string{"/api/scores/", "/api/daily/", "/api/races", "/api/live", "/api/player/", "/api/game/"} {
		if !strings.Contains(body, route) {
			t.Errorf("/api/ does not list %s", route)
		}
	}
}

func TestSSHHost(t *testing.T) {
	for in, want := range map[string]string{
		"example.org":           "example.org",
		"Example.ORG:443":       "example.org",
		"example.org.":          "example.org",
		"a-b.c9.example":        "a-b.c9.example",
		"localhost:8080":        "localhost",
		"192.0.2.1:80":          "192.0.2.1",
		"[2001:db8::1]:80":      "2001:db8::1",
		"[2001:db8::1]":         "2001:db8::1",
		"":                      "",
		"bad_host!":             "",
		"evil<script>":          "",
		"a b":                   "",
		"-lead.example":         "",
		"trail-.example":        "",
		"x..example":            "",
		"例え.jp":                 "",
		"[fe80::1%25eth0]:80":   "",
		"-oProxyCommand=x":      "",
		strings.Repeat("a", 64): "",
	} {
		if got := sshHost(in); got != want {
			t.Errorf("sshHost(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTitles: the front page's title names the site once.
func TestTitles(t *testing.T) {
	w := newWorld(t)
	ts := w.site(t, Config{})
	for path, want := range map[string]string{
		"/":               "<title>ssh2048</title>",
		"/scores/4/human": "<title>Leaderboard 4×4, human · ssh2048</title>",
	} {
		if _, body := get(t, ts, path); !strings.Contains(body, want) {
			t.Errorf("%s: no %s", path, want)
		}
	}
}

// TestNoEmptyHeaders: every column of every table has a header a screen
// reader can say.
func TestNoEmptyHeaders(t *testing.T) {
	empty := regexp.MustCompile(`<th[^>]*>\s*</th>`)
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := templateFS.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if m := empty.Find(b); m != nil {
			t.Errorf("%s has an empty table header: %s", n, m)
		}
	}
}

// TestLiveFollows: /live keeps itself current with its script (no
// reload), and says how to watch a game over SSH.
func TestLiveFollows(t *testing.T) {
	w := newWorld(t)
	id := w.play(t, w.player(t, "ann"), 4, store.KindHuman, 10)
	ts := w.site(t, Config{SSHPort: 2222})
	body := getAs(t, ts, "play.example.org", "/live")
	for _, want := range []string{`<script src="/static/live.js" defer></script>`, "ssh -t -p 2222 play.example.org watch", fmt.Sprintf("watch %d", id)} {
		if !strings.Contains(body, want) {
			t.Errorf("/live lacks %s:\n%s", want, body)
		}
	}
	if resp, _ := get(t, ts, "/static/live.js"); resp.StatusCode != http.StatusOK {
		t.Errorf("/static/live.js: status %d", resp.StatusCode)
	}
}
