package server_test

import (
	"io"
	"runtime"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/server"
)

// BenchmarkSessionMemory measures what a session costs in memory, in
// this process (server and clients both), after a garbage collection:
// heap and goroutine stacks per game screen, then per spectator of one
// of those games. The clients' share is the same for both (one
// connection, one PTY session, its output read and dropped), so the
// difference is what a spectator costs the server over a game screen.
//
//	go test -run '^$' -bench SessionMemory -benchtime 1x ./server/
func BenchmarkSessionMemory(b *testing.B) {
	const n = 200
	ts := startServer(b, func(c *server.Config) {
		c.Limits.MaxConnsPerIP, c.Limits.ConnRatePerIP, c.Limits.MaxUnauthPerIP, c.Limits.MaxConns = 0, 0, 0, 0
	})
	open := func(user, cmd string) {
		c := ts.dial(b, user, newKey(b))
		s, err := c.NewSession()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		if err := s.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
			b.Fatal(err)
		}
		out, err := s.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		go io.Copy(io.Discard, out) //nolint:errcheck // ends with the session
		if cmd == "" {
			err = s.Shell()
		} else {
			err = s.Start(cmd)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	used := func() (uint64, uint64, int) {
		time.Sleep(2 * time.Second) // first frames drawn, arrivals told
		runtime.GC()
		runtime.GC() // and the pools' victims
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc, m.StackInuse, runtime.NumGoroutine()
	}
	for b.Loop() {
		h0, s0, g0 := used()
		for range n {
			open("player", "")
		}
		h1, s1, g1 := used()
		for range n {
			open("viewer", "watch player")
		}
		h2, s2, g2 := used()
		b.ReportMetric(float64(h1-h0)/n, "heapB/screen")
		b.ReportMetric(float64(s1-s0)/n, "stackB/screen")
		b.ReportMetric(float64(g1-g0)/n, "goroutines/screen")
		b.ReportMetric(float64(h2-h1)/n, "heapB/spectator")
		b.ReportMetric(float64(s2-s1)/n, "stackB/spectator")
		b.ReportMetric(float64(g2-g1)/n, "goroutines/spectator")
	}
}
