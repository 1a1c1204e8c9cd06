package load

import (
	"context"
	"io"
	"testing"
	"testing/iotest"
	"time"
)

// readerOf returns each part in its own Read, then io.EOF.
type readerOf []string

func (r *readerOf) Read(p []byte) (int, error) {
	if len(*r) == 0 {
		return 0, io.EOF
	}
	n := copy(p, (*r)[0])
	*r = (*r)[1:]
	return n, nil
}

func TestReadChunksText(t *testing.T) {
	parts := readerOf{"\x1b[?2026$p\x1b[?2027$p", "\x1b[?1049h\x1b[H\x1b[2J  ", "\x1b[Hssh2048\r\n", "\x1b[2;1H"}
	out := make(chan chunk, 10)
	readChunks(&parts, out, nil)
	close(out)
	var text []bool
	for c := range out {
		if c.err == nil {
			text = append(text, c.text)
		}
	}
	// Only the first read with visible text is marked; after it nothing is
	// scanned.
	want := []bool{false, false, true, false}
	if len(text) != len(want) {
		t.Fatalf("chunks %v, want %v", text, want)
	}
	for i := range want {
		if text[i] != want[i] {
			t.Fatalf("chunks %v, want %v", text, want)
		}
	}
}

func TestReadChunksError(t *testing.T) {
	out := make(chan chunk, 1)
	readChunks(iotest.ErrReader(io.ErrUnexpectedEOF), out, nil)
	if c := <-out; c.err != io.ErrUnexpectedEOF {
		t.Fatalf("got %+v", c)
	}
}

// Terminal queries long before the first frame, as on a busy server, do
// not count as the first frame; the frame that follows does, with all its
// bytes.
func TestFirstFrameWaitsForText(t *testing.T) {
	cfg := DefaultConfig()
	s := &session{cfg: &cfg}
	chunks := make(chan chunk, 4)
	go func() {
		chunks <- chunk{n: 18, at: time.Now()}
		time.Sleep(3 * settle)
		chunks <- chunk{n: 200, at: time.Now(), text: true}
		time.Sleep(settle / 4)
		chunks <- chunk{n: 40, at: time.Now()}
	}()
	start := time.Now()
	if err := s.firstFrame(context.Background(), chunks); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 3*settle+settle/4+settle {
		t.Fatalf("first frame after %v, before its end had settled", took)
	}
	if s.firstBytes != 258 {
		t.Fatalf("first frame %d bytes, want 258", s.firstBytes)
	}
}

func TestFirstFrameTimeout(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ConnectTimeout = 50 * time.Millisecond
	s := &session{cfg: &cfg}
	chunks := make(chan chunk, 1)
	chunks <- chunk{n: 18, at: time.Now()} // queries only, never a screen
	err := s.firstFrame(context.Background(), chunks)
	if ke, ok := err.(*kindError); !ok || ke.kind != errFirstFrame {
		t.Fatalf("got %v, want a first_frame error", err)
	}
}

// A key waits for output in flight to pause, but not beyond FrameTimeout.
func TestDrainUntilWaitsForQuiet(t *testing.T) {
	for _, tc := range []struct {
		name      string
		streamFor time.Duration // output every 10 ms for this long
		min, max  time.Duration // when drainUntil may return
	}{
		{"no output", 0, 50 * time.Millisecond, 150 * time.Millisecond},
		{"a frame arriving", 200 * time.Millisecond, 150*time.Millisecond + settle/2, 600 * time.Millisecond},
		{"endless output", 10 * time.Second, 300 * time.Millisecond, 800 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.FrameTimeout = 300 * time.Millisecond
			s := &session{cfg: &cfg}
			chunks := make(chan chunk, 1)
			done := make(chan struct{})
			defer close(done)
			go func() {
				for end := time.Now().Add(tc.streamFor); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
					select {
					case chunks <- chunk{n: 1, at: time.Now()}:
					case <-done:
						return
					}
				}
			}()
			start := time.Now()
			ok, err := s.drainUntil(context.Background(), chunks, start.Add(50*time.Millisecond), nil, -1)
			took := time.Since(start)
			if !ok || err != nil {
				t.Fatalf("drainUntil = %v, %v", ok, err)
			}
			if took < tc.min || took > tc.max {
				t.Fatalf("returned after %v, want %v to %v", took, tc.min, tc.max)
			}
		})
	}
}
