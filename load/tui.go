package load

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
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
// frame counts as complete. A screen's frames come at most 60 a second
// (package screen), so a frame's bytes come in bursts well under this apart.
const settle = 200 * time.Millisecond

// arrows are the keys the tui mode sends: up, down, right, left as an
// xterm sends them in normal cursor mode.
var arrows = [4]string{"\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D"}

// chunk is one read of the session's output.
type chunk struct {
	n    int
	at   time.Time // when the read returned
	text bool      // it holds something visible, not only escape sequences
	mark bool      // it holds readChunks' marker, the first time
	data []byte    // the bytes read, once keep is set (see readChunks)
	err  error
}

// readChunks reads r until it fails or done is closed, stamping each read
// with the time it returned. Until the first visible text it also tells
// whether a read had any (see firstFrame), and until the first marker (if
// not "") whether a read had it. Once keep (if not nil) is set, each
// chunk carries a copy of its bytes (see readScreenMoves); until then only
// their count, as a run's sessions read megabytes they need not keep.
func readChunks(r io.Reader, out chan<- chunk, done <-chan struct{}, marker string, keep *atomic.Bool) {
	buf := make([]byte, 8<<10)
	seenText, seenMark := false, marker == ""
	for {
		n, err := r.Read(buf)
		c := chunk{n: n, at: time.Now(), err: err}
		if keep != nil && keep.Load() {
			c.data = bytes.Clone(buf[:n])
		}
		if !seenText || !seenMark {
			text := ansi.Strip(string(buf[:n]))
			if !seenText {
				c.text = strings.TrimSpace(text) != ""
				seenText = c.text
			}
			if !seenMark {
				c.mark = strings.Contains(text, marker)
				seenMark = c.mark
			}
		}
		if !send(out, c, done) || err != nil {
			return
		}
	}
}

// playTUI opens the game screen on a PTY, waits for its first frame and
// plays arrow keys until stop (see playKeys).
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
	var keep atomic.Bool
	go readChunks(out, chunks, done, "", &keep)

	if err := s.firstFrame(ctx, chunks); err != nil {
		return err
	}
	if s.cfg.Size != 0 && s.cfg.Size != 4 {
		// The game screen opens on 4×4 for a new player; a digit opens
		// that size's game.
		if _, err := io.WriteString(in, strconv.Itoa(s.cfg.Size)); err != nil {
			return &kindError{errWrite, err}
		}
		if err := s.redrawn(ctx, chunks); err != nil {
			return err
		}
	}
	s.playing = time.Now()
	s.playsNow()
	if s.cfg.Rate == 0 {
		defer func() { s.played = time.Since(s.playing) }()
		return s.idle(ctx, chunks, stop)
	}
	err = s.playKeys(ctx, chunks, in, stop)
	s.played = time.Since(s.playing)
	if err != nil {
		return err
	}
	if s.cfg.Verify && s.keys > 0 {
		return s.readScreenMoves(ctx, sess, in, chunks, &keep)
	}
	return nil
}

// playKeys sends arrow keys to w at the configured rate until stop.
//
// Each key is timed from its write until the first output that arrives
// after it: the server draws as soon as the key is applied, or at most
// one frame interval later when the last frame was that recent. The bytes
// from there until the next key are that key's frame. A key that changes
// nothing on the board changes nothing on the screen, and the server then
// sends nothing at all. So the next key goes out when it is due, but never
// before the previous key was answered or FrameTimeout has passed since it
// was written (closed loop: a slow server lowers the rate instead of piling
// keys up), and never while output is still flowing (its tail would pass
// for the next key's answer; this wait is bounded by FrameTimeout too). A key whose answer did not come before
// the next key is counted as a key without a frame. At stop, the key in
// flight still gets its answer, within FrameTimeout.
func (s *session) playKeys(ctx context.Context, chunks <-chan chunk, w io.Writer, stop <-chan struct{}) error {
	defer s.endFrame()
	var (
		pending bool // a key is waiting for its frame
		t0      time.Time
		last    time.Time // the last output
		stopped bool
		key     = -1 // the arrow sent last
		// still has a bit for each arrow sent since the last frame that
		// had none: it moved nothing.
		still uint8
	)
	gap := s.quietGap()
	next := time.Now().Add(time.Duration(s.rng.Float64() * float64(s.pause())))
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		// When the next key may go, or, after stop, when to give up on
		// the one in flight.
		due := next
		if pending {
			due = later(due, t0.Add(s.cfg.FrameTimeout))
		}
		if stopped {
			if !pending {
				return nil
			}
			due = t0.Add(s.cfg.FrameTimeout)
		} else {
			due = earlier(later(due, last.Add(gap)), due.Add(s.cfg.FrameTimeout))
		}
		timer.Reset(time.Until(due))
		select {
		case c := <-chunks:
			if s.room != nil && c.n > tinyRedraw {
				s.outputAt = append(s.outputAt, c.at)
			}
			if pending && s.room != nil && c.n > 0 && c.at.Sub(t0) >= opponentWindow {
				// Past the key's turn in its room, output is another
				// racer's move (see opponentLatencies): the key had no
				// frame of its own.
				pending = false
				s.endFrame()
			}
			// In a race, the clock's redraw is not the key's frame.
			if pending && c.n > 0 && !c.at.Before(t0) && (s.room == nil || c.n > clockRedraw) {
				pending = false
				if s.room != nil {
					s.raceKeys[len(s.raceKeys)-1].answered = true
				}
				s.answered++
				still = 0
				s.addLatency(t0, c.at)
				s.byPhase(t0, c.at)
				s.endFrame() // the previous key's frame ends where this one starts
				s.frame, s.inFrame = c.n, true
			} else {
				s.account(c)
			}
			if c.n > 0 {
				last = c.at
			}
			if c.err != nil {
				return closedError(c.err)
			}
			continue
		case <-timer.C:
		case <-stop:
			stopped, stop = true, nil
			s.outputUntil = time.Now()
			continue
		case <-ctx.Done():
			return ctx.Err()
		}
		if stopped {
			return nil // the key in flight had no frame
		}
		if pending { // no frame: the key changed nothing
			pending, still = false, still|1<<key
			s.endFrame()
		}
		if s.holding() {
			next = time.Now().Add(holdPoll)
			continue
		}
		if s.room != nil {
			// The room's keys take turns (see opponentLatencies).
			if wait := time.Until(s.room.turn(time.Now())); wait > 0 {
				time.Sleep(wait)
			}
		}
		s.keys++
		t0 = time.Now()
		if s.phase != nil {
			s.sentPhase = s.phase.Load()
		}
		if s.room != nil {
			s.raceKeys = append(s.raceKeys, raceKey{at: t0})
		}
		key = s.nextArrow(key, still)
		if _, err := io.WriteString(w, arrows[key]); err != nil {
			return &kindError{errWrite, err}
		}
		pending = true
		next = later(next.Add(s.pause()), t0)
	}
}

// nextArrow picks the next key at random, but after a key that moved
// nothing, one that moves, as a player would: each key that moves
// nothing costs the session a --frame-timeout of waiting for a frame
// that does not come, and two in a row can take a whole half of a short
// spectator run. still has a bit for each arrow sent since the last
// frame, last among them. A key moves nothing when every line of the
// board is packed its way, so the opposite key moves the tiles of every
// line that is not full: it goes next. Only when that moved nothing too
// does one of the others go, at random, and when all four did (the game
// is over, or the screen is no game), any but the last.
func (s *session) nextArrow(last int, still uint8) int {
	if still == 0 || last < 0 {
		return s.rng.IntN(len(arrows))
	}
	if o := opposite(last); still&(1<<o) == 0 {
		return o
	}
	var untried [len(arrows)]int
	n := 0
	for k := range arrows {
		if still&(1<<k) == 0 {
			untried[n] = k
			n++
		}
	}
	if n == 0 { // nothing moves: any key but the last
		k := s.rng.IntN(len(arrows) - 1)
		if k >= last {
			k++
		}
		return k
	}
	return untried[s.rng.IntN(n)]
}

// opposite is the arrow the other way: arrows pairs up with down and
// right with left.
func opposite(k int) int { return k ^ 1 }

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// idle receives output until stop, for sessions that send no keys.
func (s *session) idle(ctx context.Context, chunks <-chan chunk, stop <-chan struct{}) error {
	for {
		select {
		case c := <-chunks:
			s.account(c)
			if c.err != nil {
				return closedError(c.err)
			}
		case <-stop:
			return nil
		case <-ctx.Done():
			return ctx.Err()
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

// redrawn waits for the screen to draw again after a key that changes
// it: the first output, then until the output pauses for settle.
func (s *session) redrawn(ctx context.Context, chunks <-chan chunk) error {
	deadline := time.NewTimer(s.cfg.ConnectTimeout)
	defer deadline.Stop()
	var quiet <-chan time.Time
	for {
		select {
		case c := <-chunks:
			if c.err != nil {
				return closedError(c.err)
			}
			quiet = time.After(settle)
		case <-quiet:
			return nil
		case <-deadline.C:
			return failf(errFirstFrame, "the screen did not change within %v", s.cfg.ConnectTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// account adds a chunk's bytes to the frame being received, or to the
// stray bytes when no key is waiting for them.
func (s *session) account(c chunk) {
	if s.inFrame {
		s.frame += c.n
	} else {
		s.strayBytes += int64(c.n)
	}
}

// endFrame records the size of the frame being received, if any.
func (s *session) endFrame() {
	if s.inFrame {
		s.frameBytes.add(s.frame, s.rng)
		s.frame, s.inFrame = 0, false
	}
}

// quietGap is the pause in the output a key waits for: half the settle
// time, or half the pause between keys at high rates, but never less
// than motionGap.
func (s *session) quietGap() time.Duration {
	if s.cfg.Rate == 0 {
		return settle / 2
	}
	return max(motionGap, min(settle/2, time.Duration(float64(time.Second)/s.cfg.Rate/2)))
}

// motionGap is longer than the pause between a move's motion frames (the
// server's game screen slides a move and pops its merges, a few frames
// some tens of milliseconds apart, then draws it at rest): a key never
// goes out between them, so every frame of a move counts as its key's,
// and the next key's answer is its own. The first frame already shows
// the move (its header has the new "Moves N"), so a key's latency is to
// it, motion or not.
const motionGap = 60 * time.Millisecond

// closedError is the error for output that ended while the session played.
func closedError(err error) error {
	if errors.Is(err, io.EOF) {
		return failf(errClosed, "the server ended the session")
	}
	return &kindError{errClosed, err}
}
