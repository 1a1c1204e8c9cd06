package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// TestPages: every page answers with the players and games in the store,
// with the security headers; every JSON answer decodes.
func TestPages(t *testing.T) {
	w := newWorld(t)
	ann, bob := w.player(t, "ann"), w.player(t, "bob")
	ended := w.play(t, ann, 4, store.KindHuman, 0)
	w.play(t, bob, 4, store.KindHuman, 0)
	w.play(t, bob, 3, store.KindBot, 0)
	inPlay := w.play(t, ann, 5, store.KindHuman, 10)
	ts := w.site(t, Config{Metrics: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "# metrics\n") })})

	for _, tc := range []struct {
		path, contentType string
		want              []string
	}{
		{"/", "text/html", []string{"ann", "bob", "4×4"}},
		{"/scores/4/human", "text/html", []string{"ann", "bob", fmt.Sprintf(`href="/game/%d"`, ended)}},
		{"/scores/3/bot", "text/html", []string{"bob"}},
		{"/scores/8/assisted", "text/html", []string{"no games yet"}},
		{"/daily/4", "text/html", []string{"Daily challenge 4×4"}},
		{"/daily/4?day=2026-01-01", "text/html", []string{"2026-01-01", "no games yet"}},
		{"/races", "text/html", []string{"Ratings"}},
		{"/live", "text/html", []string{"ann", `class="board s5"`}},
		{fmt.Sprintf("/player/%d", ann.ID), "text/html", []string{"ann", "ann-key-fing", "#ann-ke", "5×5", fmt.Sprintf(`href="/game/%d"`, ended)}},
		{fmt.Sprintf("/game/%d", ended), "text/html", []string{`data-game="` + fmt.Sprint(ended) + `"`, `src="/static/replay.js"`, `class="board s4"`}},
		{"/api/", "text/html", []string{"/api/scores/", "/api/game/"}},
		{"/api/scores/4/human", "application/json", []string{`"name":"ann"`, `"kind":"human"`}},
		{"/api/daily/4", "application/json", []string{"[]"}},
		{"/api/races", "application/json", []string{`"ratings":[]`}},
		{"/api/live", "application/json", []string{fmt.Sprintf(`"game_id":%d`, inPlay)}},
		{fmt.Sprintf("/api/player/%d", ann.ID), "application/json", []string{`"bests":[{`}},
		{fmt.Sprintf("/api/game/%d", ended), "application/json", []string{`"boards":["`}},
		{"/static/style.css", "text/css", []string{"#bbada0", "#cdc1b4", "#edc22e", "#776e65", "#f9f6f2"}},
		{"/static/replay.js", "text/javascript", []string{"/api/game/"}},
		{"/healthz", "text/plain", []string{"ok"}},
		{"/readyz", "text/plain", []string{"ready"}},
		{"/metrics", "", []string{"# metrics"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, body := get(t, ts, tc.path)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, tc.contentType) {
				t.Errorf("Content-Type %q, want %s", ct, tc.contentType)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "default-src 'none'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Error("no X-Content-Type-Options: nosniff")
			}
			for _, s := range tc.want {
				if !strings.Contains(body, s) {
					t.Errorf("lacks %q", s)
				}
			}
			if tc.contentType == "application/json" && !json.Valid([]byte(body)) {
				t.Errorf("not JSON: %s", body)
			}
		})
	}
}

// TestScoresJSONMatchesScoresCommand: /api/scores is `scores --json`: the
// same fields, the same rows.
func TestScoresJSONMatchesScoresCommand(t *testing.T) {
	w := newWorld(t)
	for _, name := range []string{"ann", "bob", "cy"} {
		w.play(t, w.player(t, name), 4, store.KindHuman, 0)
	}
	ts := w.site(t, Config{})
	_, body := get(t, ts, "/api/scores/4/human?limit=2")
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	var got []wire.ScoreEntry
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("decode as scores --json rows: %v\n%s", err, body)
	}
	rows, err := w.svc.Leaderboard(context.Background(), 4, store.KindHuman, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := scoreEntries(rows, 4, store.KindHuman)
	for i := range want { // JSON times lose the monotonic clock
		if want[i].Ended != nil {
			e := want[i].Ended.Round(0)
			want[i].Ended = &e
		}
	}
	if len(got) != 2 || !reflect.DeepEqual(jsonOf(t, got), jsonOf(t, want)) {
		t.Errorf("got %s\nwant %s", jsonOf(t, got), jsonOf(t, want))
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hostileNames are display names that are markup: a script, an element
// with an event handler. The store keeps them (they are printable text,
// within its 16 cells), so the pages must make them inert.
var hostileNames = []string{`<script>alert(1)`, `<svg/onload=a()>`}

// TestHostileNames: a name made of markup is shown as text on every page
// it appears on, in the JSON as the string it is, and cut to its bound.
func TestHostileNames(t *testing.T) {
	w := newWorld(t)
	evil, svg := w.player(t, hostileNames[0]), w.player(t, hostileNames[1])
	ended := w.play(t, evil, 4, store.KindHuman, 0)
	w.play(t, svg, 4, store.KindHuman, 0)
	w.play(t, evil, 4, store.KindBot, 12) // in play: on /live
	w.play(t, svg, 5, store.KindBot, 12)
	ts := w.site(t, Config{})

	for _, path := range []string{"/", "/scores/4/human", "/live", fmt.Sprintf("/player/%d", evil.ID), fmt.Sprintf("/game/%d", ended)} {
		_, body := get(t, ts, path)
		for _, bad := range []string{"<script>alert", "<svg"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: the page holds %q as markup", path, bad)
			}
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)") {
			t.Errorf("%s: the name is not shown as text", path)
		}
		if path != "/game/"+fmt.Sprint(ended) && path != fmt.Sprintf("/player/%d", evil.ID) && !strings.Contains(body, "&lt;svg/onload=a()&gt;") {
			t.Errorf("%s: the second name is not shown as text", path)
		}
		if path == "/scores/4/human" && !strings.Contains(body, "<bdi>") {
			t.Error("names are not isolated in <bdi>")
		}
	}
	_, body := get(t, ts, "/api/scores/4/human")
	var rows []wire.ScoreEntry
	if err := json.Unmarshal([]byte(body), &rows); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows {
		found = found || r.Name == hostileNames[0]
	}
	if !found {
		t.Errorf("the JSON does not give the name as it is: %s", body)
	}
	_, body = get(t, ts, fmt.Sprintf("/game/%d", ended))
	if !strings.Contains(body, `<span class="key">#`) {
		t.Error("the replay page shows no key tag beside the name")
	}
}

// TestStoredNameCleaned: a name stored with escapes and a bidi override
// (by an older version, or by hand) reaches neither a player's page nor
// its JSON, which is read in terminals too (curl), as stored: as
// store.DisplayName shows it, as every board does.
func TestStoredNameCleaned(t *testing.T) {
	w := newWorld(t)
	p := w.player(t, "eve")
	w.play(t, p, 4, store.KindHuman, 0)
	w.legacyName(t, p, "eve\u202e\x1b[2J\u009b31m\x07")
	ts := w.site(t, Config{})
	for _, path := range []string{fmt.Sprintf("/player/%d", p.ID), fmt.Sprintf("/api/player/%d", p.ID)} {
		_, body := get(t, ts, path)
		if !strings.Contains(body, "eve") || strings.ContainsFunc(body, func(r rune) bool {
			return unicode.Is(unicode.Bidi_Control, r) || unicode.IsControl(r) && r != '\n' && r != '\t'
		}) {
			t.Errorf("%s: the stored name is not shown cleaned: %q", path, body)
		}
	}
}

// TestLookAlikeTags: on a board, names that look alike (from before
// accounts made a name one account's) carry their player's tag, as the
// boards over SSH show them; other names do not.
func TestLookAlikeTags(t *testing.T) {
	w := newWorld(t)
	for _, name := range []string{"swap1", "swapl", "bob"} {
		p := w.player(t, name)
		w.legacyName(t, p, name)
		w.play(t, p, 4, store.KindHuman, 0)
	}
	ts := w.site(t, Config{})
	_, body := get(t, ts, "/scores/4/human")
	for _, name := range []string{"swap1", "swapl"} {
		tag := store.LookAlikeTag(store.ShortID("SHA256:" + name + "-key-fingerprint-for-tests"))
		if !strings.Contains(body, "<bdi>"+name+"</bdi></a> <span class=\"key\">"+tag+"</span>") {
			t.Errorf("%s is not tagged %s", name, tag)
		}
	}
	if !strings.Contains(body, "<bdi>bob</bdi></a></td>") {
		t.Error("bob, whose name looks like no other, is tagged")
	}
	_, body = get(t, ts, "/api/scores/4/human")
	if !strings.Contains(body, `"player":"swap1-key-fi"`) {
		t.Errorf("the JSON lacks the short id as scores --json gives it: %s", body)
	}
}

// TestReplayOnlyEnded: a game in play has no replay (its future, from its
// seed, stays on the server); an ended game's replay has every board, the
// last one the stored board, and no seed.
func TestReplayOnlyEnded(t *testing.T) {
	w := newWorld(t)
	ann := w.player(t, "ann")
	inPlay := w.play(t, ann, 4, store.KindHuman, 20)
	ended := w.play(t, ann, 3, store.KindHuman, 0)
	ts := w.site(t, Config{})

	for _, path := range []string{fmt.Sprintf("/game/%d", inPlay), fmt.Sprintf("/api/game/%d", inPlay), "/game/999999", "/api/game/999999", "/game/x"} {
		resp, body := get(t, ts, path)
		if resp.StatusCode != http.StatusNotFound || strings.Contains(body, `"boards"`) {
			t.Errorf("%s: status %d, %.200s", path, resp.StatusCode, body)
		}
	}
	_, body := get(t, ts, fmt.Sprintf("/api/game/%d", ended))
	if strings.Contains(strings.ToLower(body), "seed") {
		t.Errorf("the replay's JSON mentions a seed: %.300s", body)
	}
	var got replayJSON
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	rec, err := w.svc.Record(context.Background(), ended)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Boards) != len(rec.Moves)+1 || len(got.Scores) != len(got.Boards) || len(got.Moves) != len(rec.Moves) {
		t.Fatalf("%d boards, %d scores, %d moves for a game of %d moves", len(got.Boards), len(got.Scores), len(got.Moves), len(rec.Moves))
	}
	if got.Score != rec.Score || got.MaxTile != rec.MaxTile || got.Won != rec.Won || !reflect.DeepEqual(got.Board, values(rec.Board)) {
		t.Errorf("replay ends on %v (score %d, max %d, won %v); the record says %v (%d, %d, %v)",
			got.Board, got.Score, got.MaxTile, got.Won, values(rec.Board), rec.Score, rec.MaxTile, rec.Won)
	}
	if last := got.Boards[len(got.Boards)-1]; last != tileDigits(rec.Board) {
		t.Errorf("last board %s, record %s", last, tileDigits(rec.Board))
	}
}

// TestReadOnly: nothing but GET and HEAD is answered.
func TestReadOnly(t *testing.T) {
	w := newWorld(t)
	ts := w.site(t, Config{})
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		for _, path := range []string{"/", "/scores/4/human", "/api/scores/4/human", "/api/game/1", "/nowhere"} {
			resp, _ := do(t, ts, method, path, nil)
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: status %d, want 405", method, path, resp.StatusCode)
			}
		}
	}
	if resp, _ := do(t, ts, http.MethodHead, "/scores/4/human", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD: status %d", resp.StatusCode)
	}
}

func TestBadRequests(t *testing.T) {
	w := newWorld(t)
	ts := w.site(t, Config{})
	for path, want := range map[string]int{
		"/scores/9/human":           400,
		"/scores/2/human":           400,
		"/scores/4/evil":            400,
		"/api/scores/4/evil":        400,
		"/scores/4/human?limit=0":   400,
		"/scores/4/human?limit=1e9": 400,
		"/daily/4?day=yesterday":    400,
		"/player/abc":               404,
		"/player/0":                 404,
		"/player/424242":            404,
		"/api/player/424242":        404,
		"/static/nothing.js":        404,
		"/wp-login.php":             404,
	} {
		if resp, body := get(t, ts, path); resp.StatusCode != want {
			t.Errorf("%s: status %d, want %d: %.200s", path, resp.StatusCode, want, body)
		}
	}
}

// TestRequestLimit: an address that asks too fast gets 429s, counted; a
// trusted proxy is counted by the address it forwards; the probes are
// never limited.
func TestRequestLimit(t *testing.T) {
	w := newWorld(t)
	obs := &countingObserver{}
	ts := w.site(t, Config{RatePerIP: 0.001, BurstPerIP: 2, Observer: obs,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	statuses := func(path string, hdr http.Header, n int) []int {
		var out []int
		for range n {
			resp, _ := do(t, ts, http.MethodGet, path, hdr)
			out = append(out, resp.StatusCode)
		}
		return out
	}
	if got := statuses("/api/live", nil, 3); !reflect.DeepEqual(got, []int{200, 200, 429}) {
		t.Errorf("three requests with a burst of 2: %v", got)
	}
	if got := statuses("/healthz", nil, 3); !reflect.DeepEqual(got, []int{200, 200, 200}) {
		t.Errorf("health probes over the limit: %v", got)
	}
	fwd := http.Header{"X-Forwarded-For": {"198.51.100.7"}}
	if got := statuses("/api/live", fwd, 3); !reflect.DeepEqual(got, []int{200, 200, 429}) {
		t.Errorf("a forwarded address has a bucket of its own: %v", got)
	}
	if obs.limited != 2 {
		t.Errorf("%d requests counted as limited, want 2", obs.limited)
	}
}

type countingObserver struct {
	limited  int
	requests map[string]int
}

func (o *countingObserver) Request(handler string, code int) {
	if o.requests == nil {
		o.requests = map[string]int{}
	}
	o.requests[fmt.Sprintf("%s %d", handler, code)]++
}
func (o *countingObserver) Limited()           { o.limited++ }
func (o *countingObserver) ConnRefused(string) {}

// TestClientAddr: X-Forwarded-For is believed from a trusted proxy only,
// loopback or not, read from its end past the trusted proxies' own
// addresses.
func TestClientAddr(t *testing.T) {
	trust := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	for _, tc := range []struct {
		remote, forwarded string
		trusted           []netip.Prefix
		want              string
	}{
		{"192.0.2.1:5000", "", trust, "192.0.2.1/32"},
		{"192.0.2.1:5000", "198.51.100.7", trust, "192.0.2.1/32"}, // not a trusted proxy: the header is not believed
		{"127.0.0.1:5000", "198.51.100.7", nil, "127.0.0.1/32"},   // loopback is not trusted by default (a socat, an ssh -L)
		{"127.0.0.2:5000", "198.51.100.7", trust, "127.0.0.2/32"}, // loopback, but not the trusted address
		{"[::1]:5000", "198.51.100.7", nil, "::/64"},
		{"127.0.0.1:5000", "198.51.100.7", trust, "198.51.100.7/32"},
		{"127.0.0.1:5000", "203.0.113.5, 198.51.100.7", trust, "198.51.100.7/32"}, // the proxy's own addition is the last
		{"127.0.0.1:5000", "198.51.100.7, 10.1.2.3", trust, "198.51.100.7/32"},    // past a trusted proxy in front
		{"127.0.0.1:5000", "10.9.9.9, 10.1.2.3", trust, "10.9.9.9/32"},            // trusted all the way: the first
		{"10.0.0.1:5000", "198.51.100.7", trust, "198.51.100.7/32"},
		{"[::1]:5000", "2001:db8:1:2:3::4", trust, "2001:db8:1:2::/64"},
		{"[2001:db8:a:b:c::1]:5000", "", trust, "2001:db8:a:b::/64"},
		{"[::ffff:192.0.2.9]:5000", "", trust, "192.0.2.9/32"},
		{"[::ffff:127.0.0.1]:5000", "198.51.100.7", trust, "198.51.100.7/32"},
		{"127.0.0.1:5000", "garbage", trust, "127.0.0.1/32"},
		{"127.0.0.1:5000", "198.51.100.7, garbage", trust, "127.0.0.1/32"}, // what a proxy did not write is not believed
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.remote
		if tc.forwarded != "" {
			r.Header.Set("X-Forwarded-For", tc.forwarded)
		}
		if got := clientAddr(r, tc.trusted); got != netip.MustParsePrefix(tc.want) {
			t.Errorf("%s forwarding %q, trusting %v: %v, want %s", tc.remote, tc.forwarded, tc.trusted, got, tc.want)
		}
	}
}

func TestReadyz(t *testing.T) {
	w := newWorld(t)
	var notReady error
	ts := w.site(t, Config{Ready: func(context.Context) error { return notReady }})
	if resp, _ := get(t, ts, "/readyz"); resp.StatusCode != http.StatusOK {
		t.Errorf("ready: status %d", resp.StatusCode)
	}
	notReady = errors.New("database is locked")
	resp, body := get(t, ts, "/readyz")
	if resp.StatusCode != http.StatusServiceUnavailable || strings.Contains(body, "locked") {
		t.Errorf("not ready: status %d, %q", resp.StatusCode, body)
	}
	if resp, _ := get(t, ts, "/healthz"); resp.StatusCode != http.StatusOK {
		t.Errorf("alive while not ready: status %d", resp.StatusCode)
	}
}

// TestSlowloris: a client that sends its request a little at a time, or
// opens a connection and sends nothing, is cut off by the header timeout;
// meanwhile others are served.
func TestSlowloris(t *testing.T) {
	w := newWorld(t)
	site, err := New(Config{Games: w.svc, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	to := DefaultTimeouts()
	to.ReadHeader = 300 * time.Millisecond
	srv := NewServer(site, to, quiet)
	go srv.Serve(NewListener(l, ListenerConfig{Limits: ConnLimits{MaxConns: 8}, Logger: quiet}))
	t.Cleanup(func() { srv.Close() })

	slow := func(send string) net.Conn {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		io.WriteString(c, send)
		return c
	}
	conns := []net.Conn{slow(""), slow("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")}
	for range 3 { // a byte now and then, never the end of the headers
		time.Sleep(100 * time.Millisecond)
		io.WriteString(conns[1], "a")
	}
	resp, err := http.Get("http://" + l.Addr().String() + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("another client while two stall: %v %v", resp, err)
	}
	resp.Body.Close()
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := io.ReadAll(bufio.NewReader(c))
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Errorf("stalled connection %d still open after 10 s", i)
			}
		}
	}
}

func TestShortName(t *testing.T) {
	for in, want := range map[string]string{
		"ann":                   "ann",
		"a\x1b[31mb":            "a\uFFFD[31mb",
		strings.Repeat("é", 30): strings.Repeat("é", maxNameRunes-1) + "…",
		strings.Repeat("界", 24): strings.Repeat("界", 24),
		"bad\xffutf8":           "bad\uFFFDutf8",
	} {
		if got := shortName(in); got != want {
			t.Errorf("shortName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTileCells(t *testing.T) {
	for exp, want := range map[uint8]cell{0: {"t0", ""}, 1: {"t1", "2"}, 11: {"t11", "2048"}, 14: {"tsuper", "16384"}, 17: {"tsuper", "128k"}} {
		if got := tileCell(exp); got != want {
			t.Errorf("tileCell(%d) = %+v, want %+v", exp, got, want)
		}
	}
	if !bytes.Equal([]byte(tileAlphabet[11:12]), []byte("b")) || len(tileAlphabet) != 63 {
		t.Error("the tile alphabet does not give 2048 as b, or does not reach exponent 62")
	}
}

// TestLeaderboardCache: a leaderboard read twice within pageTTL is
// rendered once; a move shows on it once pageTTL has passed.
func TestLeaderboardCache(t *testing.T) {
	w := newWorld(t)
	w.play(t, w.player(t, "ann"), 4, store.KindHuman, 0)
	ts := w.site(t, Config{})
	_, first := get(t, ts, "/api/scores/4/human")
	w.play(t, w.player(t, "bob"), 4, store.KindHuman, 0)
	if _, again := get(t, ts, "/api/scores/4/human"); again != first {
		t.Errorf("within %v the board was read again: %s", pageTTL, again)
	}
	time.Sleep(pageTTL + 50*time.Millisecond)
	if _, later := get(t, ts, "/api/scores/4/human"); !strings.Contains(later, `"name":"bob"`) {
		t.Errorf("after %v the board does not show the new game: %s", pageTTL, later)
	}
	if resp, _ := get(t, ts, "/api/scores/4/evil"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad request answered from the cache: %d", resp.StatusCode)
	}
}

// TestRequestLimitRefusesNoNumber: a rate that is no number, or infinite,
// is refused. NaN compares false with everything: it passed the check for
// a negative rate, and no limiter was made, so one address could ask
// without end, where only 0 is documented to mean no limit.
func TestRequestLimitRefusesNoNumber(t *testing.T) {
	w := newWorld(t)
	for _, rate := range []float64{math.NaN(), math.Inf(1), -1} {
		if _, err := New(Config{Games: w.svc, Logger: quiet, RatePerIP: rate, BurstPerIP: 2}); err == nil {
			t.Errorf("New with RatePerIP %v: no error", rate)
		}
	}
}
