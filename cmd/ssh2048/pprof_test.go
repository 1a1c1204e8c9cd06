package main

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

func TestCheckPprofAddr(t *testing.T) {
	for _, tt := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:6060", true},
		{"127.0.0.2:0", true},
		{"[::1]:6060", true},
		{"localhost:6060", true},
		{":6060", false},         // every interface
		{"0.0.0.0:6060", false},  // every interface
		{"[::]:6060", false},     // every interface
		{"10.0.0.1:6060", false}, // a private network is still a network
		{"example.com:6060", false},
		{"127.0.0.1", false}, // no port
	} {
		err := checkPprofAddr(tt.addr)
		if (err == nil) != tt.ok {
			t.Errorf("checkPprofAddr(%q) = %v, want ok=%v", tt.addr, err, tt.ok)
		}
		if err != nil && tt.addr != "127.0.0.1" && !errors.Is(err, errPprofNotLoopback) {
			t.Errorf("checkPprofAddr(%q) = %v, not errPprofNotLoopback", tt.addr, err)
		}
	}
}

// TestServePprofFlag: --pprof (and $SSH2048_PPROF) takes a loopback
// address only; a refused one is a usage error, exit status 2.
func TestServePprofFlag(t *testing.T) {
	t.Setenv("SSH2048_PPROF", "")
	c, _, ok := parseServe([]string{"--pprof", "127.0.0.1:6060"}, io.Discard, io.Discard)
	if !ok || c.pprof != "127.0.0.1:6060" {
		t.Fatalf("--pprof 127.0.0.1:6060: ok=%v, pprof=%q", ok, c.pprof)
	}
	var errOut bytes.Buffer
	if _, code, ok := parseServe([]string{"--pprof", ":6060"}, io.Discard, &errOut); ok || code != 2 || !strings.Contains(errOut.String(), "loopback") {
		t.Fatalf("--pprof :6060: ok=%v, code=%d, %q", ok, code, errOut.String())
	}
	t.Setenv("SSH2048_PPROF", "0.0.0.0:6060")
	if _, code, ok := parseServe(nil, io.Discard, io.Discard); ok || code != 2 {
		t.Fatalf("$SSH2048_PPROF=0.0.0.0:6060: ok=%v, code=%d", ok, code)
	}
}

func TestListenPprof(t *testing.T) {
	l, err := listenPprof("127.0.0.1:0", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	resp, err := http.Get("http://" + l.Addr().String() + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine profile") {
		t.Fatalf("status %d, body %.200q", resp.StatusCode, body)
	}
	if _, err := listenPprof("0.0.0.0:0", slog.New(slog.DiscardHandler)); !errors.Is(err, errPprofNotLoopback) {
		t.Fatalf("listenPprof(0.0.0.0:0) = %v", err)
	}
}
