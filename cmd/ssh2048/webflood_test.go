package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// floodIdle opens n HTTP connections to addr from 127.0.0.1, each sending
// one request and then keeping the connection open, as a keep-alive
// client does; they are closed by end, or when the test ends.
func floodIdle(t *testing.T, addr string, n int) (end func()) {
	t.Helper()
	var mu sync.Mutex
	var conns []net.Conn
	end = func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
		conns = nil
	}
	t.Cleanup(end)
	var wg sync.WaitGroup
	work := make(chan struct{})
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, Timeout: 5 * time.Second}
	for range 32 {
		wg.Go(func() {
			for range work {
				c, err := d.Dial("tcp", addr)
				if err != nil {
					continue // refused or queued past the backlog: the flood goes on
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
				io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
			}
		})
	}
	for range n {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	// Let the server take what it will of the flood before anyone else
	// asks: the connections it keeps hold their slots from here on.
	time.Sleep(500 * time.Millisecond)
	return end
}

// getFrom fetches url from the local address ip, on a fresh connection,
// within 5 s.
func getFrom(ip net.IP, url string) (int, error) {
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}).DialContext, DisableKeepAlives: true}
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

// TestWebFloodFromOneAddress: 1,100 idle keep-alive connections from one
// address (more than the whole server's cap) do not keep the site and its
// probes from answering another address.
func TestWebFloodFromOneAddress(t *testing.T) {
	bin := buildBinary(t)
	srv := startProcess(t, bin, t.TempDir(), "SSH2048_HTTP=127.0.0.1:0")
	floodIdle(t, srv.httpAddr, 1100)
	other := net.IPv4(127, 0, 0, 2)
	for _, path := range []string{"/healthz", "/"} {
		if code, err := getFrom(other, "http://"+srv.httpAddr+path); err != nil || code != http.StatusOK {
			t.Errorf("%s from another address during the flood: %d %v", path, code, err)
		}
	}
}

// TestMetricsListener: with --metrics, /metrics, /healthz and /readyz
// answer on a listener of their own while the site's is full, and the
// site no longer publishes /metrics.
func TestMetricsListener(t *testing.T) {
	bin := buildBinary(t)
	srv := startProcess(t, bin, t.TempDir(), "SSH2048_HTTP=127.0.0.1:0", "SSH2048_METRICS=127.0.0.1:0",
		"SSH2048_HTTP_MAX_CONNS=20", "SSH2048_HTTP_MAX_CONNS_PER_IP=0")
	if srv.opsAddr == "" {
		t.Fatal(`no "listening metrics" line`)
	}
	// The site is asked nothing before the flood: the server closes a
	// connection after its answer has gone, and one closed late, on a
	// busy machine, would free a slot after the flood took them all.
	other := net.IPv4(127, 0, 0, 2)
	endFlood := floodIdle(t, srv.httpAddr, 40)
	if _, err := getFrom(other, "http://"+srv.httpAddr+"/healthz"); err == nil {
		t.Error("the site answered over its cap of 20 connections")
	}
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200, "/": 404} {
		if code, err := getFrom(other, "http://"+srv.opsAddr+path); err != nil || code != want {
			t.Errorf("%s on --metrics while the site is full: %d %v, want %d", path, code, err, want)
		}
	}
	body := httpGet(t, "http://"+srv.opsAddr+"/metrics").body
	if got := metric(body, `ssh2048_http_connections_refused_total{reason="full"}`); got < 20 {
		t.Errorf(`ssh2048_http_connections_refused_total{reason="full"} = %v, want at least 20`, got)
	}
	if n := strings.Count(srv.logs.String(), `"msg":"http connection refused"`); n != 1 {
		t.Errorf("%d log lines for the refused connections, want 1", n)
	}
	// Once the flood has gone (the server frees its slots as it sees
	// each connection close), the site answers again, without /metrics.
	endFlood()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, err := getFrom(other, "http://"+srv.httpAddr+"/metrics")
		if err == nil && code == http.StatusNotFound {
			break
		}
		if err == nil || time.Now().After(deadline) {
			t.Fatalf("the site's /metrics with --metrics, after the flood: %d %v, want 404", code, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
