package load

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
)

// The terminal the tui mode asks for.
const (
	termName   = "xterm-256color"
	termWidth  = 80
	termHeight = 24
)

// settle is how long the first frame's output must pause before the
// frame counts as complete. The server draws at a ticker (Bubble Tea's
// default is 60 frames a second), so a frame's bytes come in bursts well
// under this apart.
const settle = 200 * time.Millisecond

// arrows are the keys the tui mode sends: up, down, right, left as an
// xterm sends them in normal cursor mode.
var arrows = [4]string{"\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D"}

// chunk is one read of the session's output.
type chunk struct {
	n    int
	at   time.Time // when the read returned
	text bool      // it holds something visible, not only escape sequences
	err  error
}

// readChunks reads r until it fails or done is closed, stamping each read
// with the time it returned. Until the first visible text it also tells
// whether a read had any (see firstFrame).
func readChunks(r io.Reader, out chan<- chunk, done <-chan struct{}) {
	buf := make([]byte, 8<<10)
	seenText := false
	for {
		n, err := r.Read(buf)
		c := chunk{n: n, at: time.Now(), err: err}
		if !seenText {
			c.text = strings.TrimSpace(ansi.Strip(string(buf[:n]))) != ""
			seenText = c.text
		}
		if !send(out, c, done) || err != nil {
			return
		}
	}
}

// playTUI opens the game screen on a PTY and sends arrow keys until stop.
//
// Each key is timed from its write until the first output that arrives
// after it: the server redraws on its ticker, so this includes up to one
// tick of waiting. The bytes from there until the next key are that key's
// frame. A key that changes nothing on the board changes nothing on the
// screen, and the server then sends nothing at all: a key with no output
// within FrameTimeout is counted as a key without a frame, and the next
// key goes out then. Keys are sent closed-loop (never before the previous
// one was answered or timed out), so a slow server lowers the key rate
// rather than piling keys up.
func (s *session) playTUI(ctx context.Context, client *gossh.Client, stop <-chan struct{}) error {
	sess, in, out, err := openSession(client)
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := sess.RequestPty(termName, termHeight, termWidth, gossh.TerminalModes{}); err != nil {
		return &kindError{errSession, err}
	}
	if err := sess.Shell(); err != nil {
		return &kindError{errSession, err}
	}
	chunks := make(chan chunk, 64)
	done := make(chan struct{})
	defer close(done)
	go readChunks(out, chunks, done)

	if err := s.firstFrame(ctx, chunks); err != nil {
		return err
	}
	s.playing = time.Now()
	defer func() { s.played = time.Since(s.playing) }()

	if s.cfg.Rate == 0 {
		_, err := s.drainUntil(ctx, chunks, time.Now().Add(MaxDuration), stop, -1)
		return err
	}
	cur := -1 // index in frameBytes of the frame being received; -1: none
	next := time.Now().Add(time.Duration(s.rng.Float64() * float64(s.pause())))
	for {
		reached, err := s.drainUntil(ctx, chunks, next, stop, cur)
		if err != nil || !reached {
			return err
		}
		s.keys++
		t0 := time.Now()
		if _, err := io.WriteString(in, arrows[s.rng.IntN(len(arrows))]); err != nil {
			return &kindError{errWrite, err}
		}
		cur, err = s.awaitFrame(ctx, chunks, t0, cur)
		if err != nil {
			return err
		}
		next = next.Add(s.pause())
		if now := time.Now(); next.Before(now) {
			next = now
		}
	}
}

// firstFrame waits for the first output with visible text (a screen
// program starts with terminal queries and modes, which may come well
// before its first frame on a busy server), then until the output pauses
// for settle.
func (s *session) firstFrame(ctx context.Context, chunks <-chan chunk) error {
	deadline := time.NewTimer(s.cfg.ConnectTimeout)
	defer deadline.Stop()
	for seen := false; !seen; {
		select {
		case c := <-chunks:
			s.firstBytes += c.n
			if c.err != nil {
				return failf(errFirstFrame, "output ended before the first frame: %v", c.err)
			}
			seen = c.text
		case <-deadline.C:
			return failf(errFirstFrame, "no screen within %v", s.cfg.ConnectTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	quiet := time.NewTimer(settle)
	defer quiet.Stop()
	for {
		select {
		case c := <-chunks:
			s.firstBytes += c.n
			if c.err != nil {
				return failf(errFirstFrame, "output ended during the first frame: %v", c.err)
			}
			quiet.Reset(settle)
		case <-quiet.C:
			return nil
		case <-deadline.C: // a screen that never stops drawing: go on anyway
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// account adds a chunk's bytes to frame cur, or to the stray bytes when
// no key is waiting for them.
func (s *session) account(c chunk, cur int) {
	if cur >= 0 {
		s.frameBytes[cur] += c.n
	} else {
		s.strayBytes += int64(c.n)
	}
}

// drainUntil receives output until t and then until the output has
// paused for quietGap, so that a key is not written into the middle of a
// frame still arriving (its tail would pass for the key's answer); the
// wait for the pause is bounded by FrameTimeout. It reports false when
// stop came first (or ctx ended, with its error).
func (s *session) drainUntil(ctx context.Context, chunks <-chan chunk, t time.Time, stop <-chan struct{}, cur int) (bool, error) {
	gap := s.quietGap()
	latest := t.Add(s.cfg.FrameTimeout)
	var last time.Time // the last output
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	for {
		select {
		case c := <-chunks:
			s.account(c, cur)
			if c.err != nil {
				return false, closedError(c.err)
			}
			last = c.at
		case now := <-timer.C:
			if quiet := now.Sub(last); quiet < gap && now.Before(latest) {
				timer.Reset(gap - quiet)
				continue
			}
			return true, nil
		case <-stop:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// quietGap is the pause in the output a key waits for: half the settle
// time, or half the pause between keys at high rates.
func (s *session) quietGap() time.Duration {
	if s.cfg.Rate == 0 {
		return settle / 2
	}
	return min(settle/2, time.Duration(float64(time.Second)/s.cfg.Rate/2))
}

// awaitFrame waits for the first output after t0, the write of a key, and
// returns the index of the new frame, or -1 if none came in time. Output
// read before t0 still belongs to the frame before (cur).
func (s *session) awaitFrame(ctx context.Context, chunks <-chan chunk, t0 time.Time, cur int) (int, error) {
	timer := time.NewTimer(s.cfg.FrameTimeout)
	defer timer.Stop()
	for {
		select {
		case c := <-chunks:
			if c.at.Before(t0) {
				s.account(c, cur)
			} else if c.n > 0 {
				s.answered++
				s.latencies = append(s.latencies, c.at.Sub(t0))
				s.frameBytes = append(s.frameBytes, c.n)
				cur = len(s.frameBytes) - 1
				if c.err == nil {
					return cur, nil
				}
			}
			if c.err != nil {
				return cur, closedError(c.err)
			}
		case <-timer.C:
			return -1, nil
		case <-ctx.Done():
			return cur, ctx.Err()
		}
	}
}

// closedError is the error for output that ended while the session played.
func closedError(err error) error {
	if errors.Is(err, io.EOF) {
		return failf(errClosed, "the server ended the session")
	}
	return &kindError{errClosed, err}
}
