package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
)

// TestForwardedFromLoopbackNotBelieved: a peer on loopback that is not a
// trusted proxy (a socat or ssh -L forwarder on the same host passes on
// whatever header its client wrote) cannot escape its rate limit by
// rotating X-Forwarded-For; a trusted proxy's clients each have their
// own.
func TestForwardedFromLoopbackNotBelieved(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		trusted []netip.Prefix
		want    int
	}{
		{nil, 3},
		{[]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, 10},
	} {
		ts := w.site(t, Config{RatePerIP: 0.001, BurstPerIP: 3, TrustedProxies: tc.trusted})
		answered := 0
		for i := range 10 {
			hdr := http.Header{"X-Forwarded-For": {fmt.Sprintf("198.51.100.%d", i+1)}}
			if resp, _ := do(t, ts, http.MethodGet, "/api/live", hdr); resp.StatusCode == http.StatusOK {
				answered++
			}
		}
		if answered != tc.want {
			t.Errorf("trusting %v: 10 requests with a rotating X-Forwarded-For from loopback, burst 3: %d answered, want %d",
				tc.trusted, answered, tc.want)
		}
	}
}

// TestNoStaticListing: /static/ is files only; a directory answers 404,
// as a name that is not there does.
func TestNoStaticListing(t *testing.T) {
	w := newWorld(t)
	ts := w.site(t, Config{})
	for path, want := range map[string]int{"/static/": 404, "/static": 404, "/static/style.css": 200, "/static/nope.css": 404} {
		if resp, body := get(t, ts, path); resp.StatusCode != want {
			t.Errorf("%s: status %d, want %d: %.80q", path, resp.StatusCode, want, body)
		}
	}
	// The embedded files have no folder; one of its own shows a folder is
	// not listed either.
	s, err := New(Config{Games: w.svc, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	h := s.staticFiles(fstest.MapFS{"css/a.css": {Data: []byte("a{}")}, "b.js": {Data: []byte("1")}})
	for path, want := range map[string]int{"/static/css/": 404, "/static/css": 404, "/static/css/a.css": 200, "/static/b.js": 200,
		"/static/css/../b.js": 200, "/static/./": 404} {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/", nil)
		r.URL.Path = path
		h(rec, r)
		if rec.Code != want {
			t.Errorf("%s: status %d, want %d: %.80q", path, rec.Code, want, rec.Body.String())
		}
	}
}

// connsFrom opens n connections to addr from the local address ip, each
// sending one request for /healthz and then idling, as a keep-alive
// client does; they are closed when the test ends.
func connsFrom(t *testing.T, ip, addr string, n int) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	for range n {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			continue // refused: the flood goes on
		}
		t.Cleanup(func() { c.Close() })
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	}
}

// getFrom fetches url from the local address ip on a fresh connection,
// within 5 s.
func getFrom(ip, url string) (int, error) {
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// refusals counts ConnRefused by reason.
type refusals struct {
	countingObserver
	mu     sync.Mutex
	reason map[string]int
}

func (o *refusals) ConnRefused(reason string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.reason == nil {
		o.reason = map[string]int{}
	}
	o.reason[reason]++
}

func (o *refusals) count(reason string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.reason[reason]
}

// serveCapped serves h on a fresh loopback listener with lim; it returns
// the address.
func serveCapped(t *testing.T, h http.Handler, lim ConnLimits, obs Observer, log *slog.Logger) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(h, DefaultTimeouts(), quiet)
	go srv.Serve(NewListener(l, ListenerConfig{Limits: lim, Observer: obs, Logger: log}))
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// TestIdleFloodFromOneAddress: idle keep-alive connections from one
// address up to and past its cap leave room for another address, whose
// / and /healthz answer; past the cap they are closed, counted, and
// logged once, not once each.
func TestIdleFloodFromOneAddress(t *testing.T) {
	w := newWorld(t)
	site, err := New(Config{Games: w.svc, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	obs := &refusals{}
	logs := &lockedBuffer{}
	addr := serveCapped(t, site, ConnLimits{MaxConns: 40, MaxConnsPerIP: 10}, obs, slog.New(slog.NewTextHandler(logs, nil)))
	connsFrom(t, "127.0.0.1", addr, 30)
	for _, path := range []string{"/healthz", "/"} {
		if code, err := getFrom("127.0.0.2", "http://"+addr+path); err != nil || code != http.StatusOK {
			t.Errorf("%s from another address during the flood: %d %v", path, code, err)
		}
	}
	if got := obs.count("per_ip"); got != 20 {
		t.Errorf("%d connections refused per address, want 20", got)
	}
	if n := strings.Count(logs.String(), "http connection refused"); n != 1 {
		t.Errorf("%d log lines for one address's refusals, want 1:\n%s", n, logs.String())
	}
}

// TestOpsWhileFull: with the site's listener full, the operator's
// endpoints on a listener of their own answer.
func TestOpsWhileFull(t *testing.T) {
	w := newWorld(t)
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "# metrics\n") })
	site, err := New(Config{Games: w.svc, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	obs := &refusals{}
	siteAddr := serveCapped(t, site, ConnLimits{MaxConns: 10}, obs, quiet)
	opsAddr := serveCapped(t, site.Ops(metrics), DefaultConnLimits(), nil, quiet)
	connsFrom(t, "127.0.0.1", siteAddr, 15)
	if _, err := getFrom("127.0.0.2", "http://"+siteAddr+"/healthz"); err == nil || obs.count("full") == 0 {
		t.Errorf("the site's listener is not full: %v, %d refused", err, obs.count("full"))
	}
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200, "/": 404, "/scores/4/human": 404} {
		if code, err := getFrom("127.0.0.2", "http://"+opsAddr+path); err != nil || code != want {
			t.Errorf("%s on the operator's listener while the site is full: %d %v, want %d", path, code, err, want)
		}
	}
}
