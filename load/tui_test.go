package load

import (
	"context"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ssh2048/ssh2048/engine"
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
	readChunks(&parts, out, nil, "", nil)
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
	readChunks(iotest.ErrReader(io.ErrUnexpectedEOF), out, nil, "", nil)
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

// fakeScreen answers the keys written to it: key i (from 1) with one
// chunk of 100 bytes after delay(i), or never when delay(i) < 0.
type fakeScreen struct {
	chunks chan chunk
	delay  func(i int) time.Duration
	done   chan struct{}
	mu     sync.Mutex
	writes int
	onKey  func(i int)
}

func newFakeScreen(t *testing.T, delay func(int) time.Duration) *fakeScreen {
	f := &fakeScreen{chunks: make(chan chunk, 16), delay: delay, done: make(chan struct{})}
	t.Cleanup(func() { close(f.done) })
	return f
}

func (f *fakeScreen) Write(p []byte) (int, error) {
	f.mu.Lock()
	f.writes++
	i := f.writes
	f.mu.Unlock()
	if d := f.delay(i); d >= 0 {
		time.AfterFunc(d, func() {
			select {
			case f.chunks <- chunk{n: 100, at: time.Now()}:
			case <-f.done:
			}
		})
	}
	if f.onKey != nil {
		f.onKey(i)
	}
	return len(p), nil
}

func testSession(cfg *Config) *session {
	return &session{cfg: cfg, rng: rand.New(rand.NewPCG(1, 2)), latencies: newSample[int64](100), frameBytes: newSample[int](100)}
}

// playFor runs playKeys against f for d.
func playFor(t *testing.T, cfg Config, f *fakeScreen, d time.Duration) *session {
	t.Helper()
	s := testSession(&cfg)
	stop := make(chan struct{})
	time.AfterFunc(d, func() { close(stop) })
	if err := s.playKeys(context.Background(), f.chunks, f, stop); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPlayKeys(t *testing.T) {
	base := DefaultConfig()
	base.Jitter = 0

	t.Run("every key answered", func(t *testing.T) {
		cfg := base
		cfg.Rate = 20
		s := playFor(t, cfg, newFakeScreen(t, func(int) time.Duration { return 5 * time.Millisecond }), 600*time.Millisecond)
		if s.keys < 5 || s.answered != s.keys || s.latencies.n != s.keys || s.frameBytes.n != s.keys {
			t.Fatalf("keys %d, answered %d, %d latencies, %d frames", s.keys, s.answered, s.latencies.n, s.frameBytes.n)
		}
		for i, l := range s.latencies.vals {
			if time.Duration(l) < 5*time.Millisecond || s.frameBytes.vals[i] != 100 {
				t.Fatalf("key %d: latency %v, %d bytes", i, time.Duration(l), s.frameBytes.vals[i])
			}
		}
	})

	t.Run("no key answered", func(t *testing.T) {
		cfg := base
		cfg.Rate, cfg.FrameTimeout = 50, 100*time.Millisecond
		s := playFor(t, cfg, newFakeScreen(t, func(int) time.Duration { return -1 }), 600*time.Millisecond)
		// Closed loop: one key per FrameTimeout, not per 20 ms.
		if s.answered != 0 || s.keys < 3 || s.keys > 7 {
			t.Fatalf("keys %d, answered %d; want about 6 keys, none answered", s.keys, s.answered)
		}
	})

	t.Run("late answer before the next key", func(t *testing.T) {
		cfg := base
		cfg.Rate, cfg.FrameTimeout = 4, 50*time.Millisecond
		s := playFor(t, cfg, newFakeScreen(t, func(int) time.Duration { return 120 * time.Millisecond }), 900*time.Millisecond)
		if s.keys < 2 || s.answered != s.keys {
			t.Fatalf("keys %d, answered %d; late frames must still count", s.keys, s.answered)
		}
		for _, l := range s.latencies.vals {
			if time.Duration(l) < 120*time.Millisecond {
				t.Fatalf("latency %v, want the real 120 ms", l)
			}
		}
	})

	t.Run("stop waits for the key in flight", func(t *testing.T) {
		cfg := base
		cfg.Rate = 50
		f := newFakeScreen(t, func(int) time.Duration { return 80 * time.Millisecond })
		stop := make(chan struct{})
		f.onKey = func(i int) {
			if i == 1 {
				close(stop)
			}
		}
		s := testSession(&cfg)
		if err := s.playKeys(context.Background(), f.chunks, f, stop); err != nil {
			t.Fatal(err)
		}
		if s.keys != 1 || s.answered != 1 {
			t.Fatalf("keys %d, answered %d; want the one key and its frame", s.keys, s.answered)
		}
	})

	t.Run("output in flight delays the next key", func(t *testing.T) {
		cfg := base
		cfg.Rate = 10 // a key every 100 ms, but the screen streams for 150 ms
		f := newFakeScreen(t, func(int) time.Duration { return -1 })
		f.onKey = func(int) {
			go func() {
				for range 15 {
					time.Sleep(10 * time.Millisecond)
					select {
					case f.chunks <- chunk{n: 10, at: time.Now()}:
					case <-f.done:
						return
					}
				}
			}()
		}
		s := playFor(t, cfg, f, 650*time.Millisecond)
		// Each key waits for the stream to pause (quietGap, 50 ms): a key
		// about every 200 ms, each answered by the stream's first piece
		// and credited with all fifteen.
		if s.keys < 2 || s.keys > 4 || s.answered != s.keys {
			t.Fatalf("keys %d, answered %d", s.keys, s.answered)
		}
		frames := s.frameBytes.vals
		for i, b := range frames[:len(frames)-1] {
			if b != 150 {
				t.Fatalf("frames %v: frame %d is not the whole stream (150 bytes)", frames, i)
			}
		}
	})
}

// boardScreen is a game screen over an engine board: a key that moves
// the tiles is answered at once with a frame, and one that moves nothing
// with nothing, as the server's game screen does. No tile comes in, so
// that the board stays the test's: distinct tiles that never merge nor
// fill a line. It stops the session after max keys.
type boardScreen struct {
	chunks chan chunk
	board  engine.Board
	moved  []bool // per key sent
	max    int
	stop   chan struct{}
}

func (b *boardScreen) Write(p []byte) (int, error) {
	dirs := map[string]engine.Direction{arrows[0]: engine.Up, arrows[1]: engine.Down, arrows[2]: engine.Right, arrows[3]: engine.Left}
	_, moved := b.board.Move(dirs[string(p)])
	b.moved = append(b.moved, moved)
	if moved {
		b.chunks <- chunk{n: 100, at: time.Now()}
	}
	if len(b.moved) == b.max {
		close(b.stop)
	}
	return len(p), nil
}

// A key that moved nothing costs the session a --frame-timeout; a half
// of a spectator run lasts two of them in the tests. So the key after
// it must move: the opposite arrow, which moves any line not full, as
// the key that moved nothing found every line packed its way.
func TestPlayKeysMoveAfterStill(t *testing.T) {
	for seed := range uint64(4) {
		cfg := DefaultConfig()
		cfg.Rate, cfg.Jitter, cfg.FrameTimeout = 1000, 0, 5*time.Millisecond
		board, err := engine.ParseBoard("0 0 0 0 0 0 0 0/0 0 0 0 0 0 0 0/0 0 0 0 0 0 0 0/0 0 0 0 0 8 0 0/" +
			"0 0 0 0 0 0 0 0/0 0 0 0 0 0 0 0/4 0 0 0 0 0 0 0/2 16 0 0 0 0 0 0")
		if err != nil {
			t.Fatal(err)
		}
		b := &boardScreen{chunks: make(chan chunk, 100), board: board, max: 50, stop: make(chan struct{})}
		s := testSession(&cfg)
		s.rng = rand.New(rand.NewPCG(seed, 2))
		if err := s.playKeys(context.Background(), b.chunks, b, b.stop); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(b.moved); i++ {
			if !b.moved[i-1] && !b.moved[i] {
				t.Fatalf("seed %d: keys %d and %d in a row moved nothing (moved %v)", seed, i, i+1, b.moved)
			}
		}
		if s.answered == 0 || s.answered == s.keys {
			t.Fatalf("seed %d: keys %d, answered %d: the board had no key that moved nothing", seed, s.keys, s.answered)
		}
	}
}
