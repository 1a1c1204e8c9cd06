package load

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// botCommands are the words the bot mode sends, one a line.
var botCommands = [4]string{wire.CommandUp + "\n", wire.CommandDown + "\n", wire.CommandRight + "\n", wire.CommandLeft + "\n"}

// maxStateLine bounds a line of bot output: an 8×8 board of large tiles
// is well under 1 KiB.
const maxStateLine = 4 << 10

// botLine is one line of `bot` output: a state, or an error line.
type botLine struct {
	wire.State
	Error *string `json:"error"`
}

// readResult is one line of output, or why there are no more.
type readResult struct {
	line []byte
	at   time.Time // when the line was complete
	err  error
}

func readLines(r io.Reader, out chan<- readResult, done <-chan struct{}) {
	br := bufio.NewReaderSize(r, maxStateLine)
	for {
		line, err := br.ReadSlice('\n')
		res := readResult{line: append([]byte(nil), line...), at: time.Now(), err: err}
		if errors.Is(err, bufio.ErrBufferFull) {
			res.err = fmt.Errorf("line longer than %d bytes", maxStateLine)
		}
		if !send(out, res, done) || err != nil {
			return
		}
	}
}

// playBot runs `bot` and sends a random direction at the configured rate
// until stop or the end of the game. Each command is timed from its write
// until its reply line is complete; the replies' own moves counter is
// checked as it goes (it must grow by one exactly when moved is true).
func (s *session) playBot(ctx context.Context, client *gossh.Client, stop <-chan struct{}) error {
	sess, in, out, err := openSession(client)
	if err != nil {
		return err
	}
	defer sess.Close()
	stderr := &capped{max: 512}
	sess.Stderr = stderr
	cmd := "bot"
	if s.cfg.Size != 0 {
		cmd += fmt.Sprintf(" --size %d", s.cfg.Size)
	}
	if err := sess.Start(cmd); err != nil {
		return &kindError{errSession, err}
	}
	lines := make(chan readResult, 4)
	done := make(chan struct{})
	defer close(done)
	go readLines(out, lines, done)

	first, err := s.nextState(ctx, lines, s.cfg.ConnectTimeout, errFirstFrame)
	if err != nil {
		return err
	}
	s.firstBytes = first.bytes
	s.firstMoves, s.lastMoves = first.Moves, first.Moves
	s.gameOver = first.Over
	s.playing = time.Now()
	defer func() { s.played = time.Since(s.playing) }()

	if s.cfg.Rate == 0 {
		if err := s.idleBot(ctx, lines, stop); err != nil {
			return err
		}
		return s.endBot(ctx, sess, in, stderr)
	}
	next := time.Now().Add(time.Duration(s.rng.Float64() * float64(s.pause())))
	for !s.gameOver && sleepUntil(ctx, next, stop) {
		s.keys++
		t0 := time.Now()
		if _, err := io.WriteString(in, botCommands[s.rng.IntN(len(botCommands))]); err != nil {
			return &kindError{errWrite, err}
		}
		st, err := s.nextState(ctx, lines, s.cfg.FrameTimeout, errReply)
		if err != nil {
			return err
		}
		s.answered++
		s.addLatency(t0, st.at)
		s.frameBytes.add(st.bytes, s.rng)
		want := s.lastMoves
		if st.Moved {
			s.moved++
			want++
		}
		if st.Moves != want {
			return failf(errReply, "moves went from %d to %d with moved=%v", s.lastMoves, st.Moves, st.Moved)
		}
		s.lastMoves = st.Moves
		s.gameOver = st.Over
		next = next.Add(s.pause())
		if now := time.Now(); next.Before(now) {
			next = now
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.endBot(ctx, sess, in, stderr)
}

// idleBot holds the bot session open until stop; the server has nothing
// to say meanwhile.
func (s *session) idleBot(ctx context.Context, lines <-chan readResult, stop <-chan struct{}) error {
	select {
	case r := <-lines:
		if r.err != nil {
			return closedError(r.err)
		}
		return failf(errReply, "unasked line %q", truncate(string(r.line), 80))
	case <-stop:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// endBot closes the input and waits for the command's exit status.
func (s *session) endBot(ctx context.Context, sess *gossh.Session, in io.Closer, stderr *capped) error {
	// Closing the input keeps the game, and the command ends with 0; after
	// the last move of a game it has ended by itself.
	in.Close()
	waited := make(chan error, 1)
	go func() { waited <- sess.Wait() }()
	timer := time.NewTimer(s.cfg.ConnectTimeout)
	defer timer.Stop()
	select {
	case err := <-waited:
		if err != nil {
			return failf(errExit, "bot: %v; stderr %q", err, stderr.String())
		}
		return nil
	case <-timer.C:
		return failf(errExit, "bot did not end within %v of its input closing", s.cfg.ConnectTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// state is a parsed state line with its size and arrival.
type state struct {
	wire.State
	bytes int
	at    time.Time
}

// nextState waits up to timeout for the next line, which must be a state.
func (s *session) nextState(ctx context.Context, lines <-chan readResult, timeout time.Duration, kind string) (state, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-lines:
		if r.err != nil {
			if errors.Is(r.err, io.EOF) {
				return state{}, failf(errClosed, "bot output ended")
			}
			return state{}, &kindError{kind, r.err}
		}
		var l botLine
		if err := json.Unmarshal(r.line, &l); err != nil {
			return state{}, failf(kind, "reply %q: %v", truncate(string(r.line), 80), err)
		}
		if l.Error != nil {
			return state{}, failf(errErrorLine, "server said %q", truncate(*l.Error, 80))
		}
		if l.Board == nil {
			return state{}, failf(kind, "reply %q has no board", truncate(string(r.line), 80))
		}
		return state{State: l.State, bytes: len(r.line), at: r.at}, nil
	case <-timer.C:
		return state{}, failf(kind, "no reply within %v", timeout)
	case <-ctx.Done():
		return state{}, ctx.Err()
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	max int
	b   strings.Builder
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}
