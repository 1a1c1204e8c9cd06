package server_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/server"
)

// chunk is one read of a session's output, stamped when it returned.
type chunk struct {
	n    int
	text string
	at   time.Time
}

// screenReader reads a PTY session's output into chunks.
func screenReader(tb testing.TB, c *gossh.Client, w, h int) (chan chunk, io.Writer) {
	tb.Helper()
	s, err := c.NewSession()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	if err := s.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		tb.Fatal(err)
	}
	in, err := s.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := s.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Shell(); err != nil {
		tb.Fatal(err)
	}
	chunks := make(chan chunk, 1024)
	go func() {
		defer close(chunks)
		buf := make([]byte, 64<<10)
		for {
			n, err := out.Read(buf)
			if n > 0 {
				chunks <- chunk{n: n, text: string(buf[:n]), at: time.Now()}
			}
			if err != nil {
				return
			}
		}
	}()
	return chunks, in
}

// drain reads chunks until none has come for quiet, and returns them.
func drain(tb testing.TB, chunks chan chunk, quiet time.Duration) []chunk {
	tb.Helper()
	var got []chunk
	for {
		select {
		case c, ok := <-chunks:
			if !ok {
				tb.Fatal("the session's output ended")
			}
			got = append(got, c)
		case <-time.After(quiet):
			return got
		}
	}
}

// BenchmarkKeystrokeToFrame plays the game screen over SSH on loopback,
// one arrow key at a time at random moments, as a player with a key (so
// every move is committed before its frame goes out). It reports the
// time from writing a key to the first byte of its frame, and the bytes
// of a frame. A key that does not change the board gets no frame and is
// not counted; a game that ends is replaced by a new one.
//
//	go test -run '^$' -bench KeystrokeToFrame -benchtime 400x ./server/
//
// With motion (serve --motion, the default) a move is a few frames: the
// latency is to the first, the bytes are all of them, read until the
// output pauses for longer than the motion's frames are apart; without,
// the same pause, so that the two are paced alike (a server idle longer
// between keys answers later, motion or not).
func BenchmarkKeystrokeToFrame(b *testing.B) {
	for _, motion := range []bool{false, true} {
		b.Run(fmt.Sprintf("motion=%v", motion), func(b *testing.B) {
			keystrokeToFrame(b, func(c *server.Config) { c.Motion, c.MotionScreens = motion, 100 })
		})
	}
}

func keystrokeToFrame(b *testing.B, opt serverOption) {
	ts := startServer(b, opt)
	chunks, in := screenReader(b, ts.dial(b, "bench", newKey(b)), 80, 24)
	drain(b, chunks, 300*time.Millisecond) // the first screen
	arrows := []string{"\x1b[A", "\x1b[D", "\x1b[B", "\x1b[C"}
	var lat []time.Duration
	frameBytes := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, err := io.WriteString(in, arrows[i%len(arrows)]); err != nil {
			b.Fatal(err)
		}
		frame := drain(b, chunks, 80*time.Millisecond)
		if len(frame) == 0 {
			continue // the board did not change
		}
		lat = append(lat, frame[0].at.Sub(start))
		var text strings.Builder
		for _, c := range frame {
			frameBytes += c.n
			text.WriteString(c.text)
		}
		if strings.Contains(text.String(), "Game over") {
			io.WriteString(in, "n")
			drain(b, chunks, 100*time.Millisecond)
		}
		// Keys land at random moments, not in step with anything.
		time.Sleep(time.Duration(rand.Int64N(int64(10 * time.Millisecond))))
	}
	b.StopTimer()
	if len(lat) == 0 {
		b.Fatal("no key changed the board")
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
	b.ReportMetric(float64(frameBytes)/float64(len(lat)), "bytes/frame")
	b.ReportMetric(float64(len(lat)), "frames")
}

// BenchmarkIdleScreen holds game screens open over SSH with nothing
// happening and measures the CPU the process (server and idle clients)
// spends per screen per second.
//
//	go test -run '^$' -bench IdleScreen -benchtime 5x ./server/
func BenchmarkIdleScreen(b *testing.B) {
	for _, screens := range []int{50} {
		b.Run(fmt.Sprintf("screens=%d", screens), func(b *testing.B) {
			ts := startServer(b, noCaps)
			all := make([]chan chunk, screens)
			for i := range all { // players of their own: one game each
				all[i], _ = screenReader(b, ts.dial(b, fmt.Sprintf("idle%d", i), newKey(b)), 80, 24)
			}
			for _, chunks := range all {
				drain(b, chunks, 200*time.Millisecond)
			}
			var cpu, wall time.Duration
			b.ResetTimer()
			for b.Loop() {
				c0, t0 := cpuTime(b), time.Now()
				time.Sleep(time.Second)
				cpu += cpuTime(b) - c0
				wall += time.Since(t0)
			}
			b.StopTimer()
			b.ReportMetric(float64(cpu.Microseconds())/wall.Seconds()/float64(screens), "cpu-µs/s/screen")
		})
	}
}

func cpuTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
