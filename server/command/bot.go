package command

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"charm.land/wish/v2"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
	"golang.org/x/time/rate"
)

// botCommand is `bot`: the bot protocol (docs/bot-protocol.md), the
// state first, then one state line per input line, each written after its
// move is committed; `bot --race` is racebot.go's.
func botCommand() Command {
	return Command{
		Name:    "bot",
		Args:    "[--size N] [--new] [--race [--room WORD]]",
		Summary: "play through the bot protocol (JSON lines on stdin/stdout); --race in a race",
		run:     (*Table).runBot,
	}
}

func (t *Table) runBot(sess *session.Session, fs *commandFlags, args []string) int {
	size := fs.Int("size", 4, fmt.Sprintf("board size, %d to %d", engine.MinSize, engine.MaxSize))
	fresh := fs.Bool("new", false, "start a new game instead of resuming the unfinished one")
	race := fs.Bool("race", false, "race: wait in the public lobby (or --room) for the start, then play")
	room := fs.String("room", "", "with --race: the private room of this word")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if !sizeOK(sess, "bot", *size) {
		return wire.ExitUsage
	}
	switch {
	case *race && *fresh:
		fmt.Fprintln(sess.Stderr(), "bot: --new does not go with --race: every race is a new game")
		return wire.ExitUsage
	case *room != "" && !*race:
		fmt.Fprintln(sess.Stderr(), "bot: --room goes with --race")
		return wire.ExitUsage
	case *race:
		return t.runRaceBot(sess, *size, *room)
	}

	seat := t.seat(sess)
	defer seat.Close()
	play, err := seat.Open(sess.Context(), *size, store.KindBot, *fresh)
	switch {
	case errors.Is(err, game.ErrShuttingDown):
		wish.Errorln(sess, "ssh2048: "+t.noticeText(session.Shutdown))
		return wire.ExitRestart
	case errors.Is(err, game.ErrAccountGone):
		return t.sayGoodbye(sess, session.Moved)
	case err != nil:
		t.log.Error("open bot game", "player", sess.Player.ID, "size", *size, "err", err)
		wish.Errorln(sess, "ssh2048: could not open your game; try again later.")
		return wire.ExitError
	}
	if sess.Player.Guest {
		wish.Errorln(sess, GuestHint)
	}

	out := &stateWriter{w: sess}
	st := play.State(engine.Result{})
	if err := out.state(st); err != nil {
		return wire.ExitOK // the client went away; the game is kept
	}
	if st.Over { // cannot happen with a fresh game, but never loop on a dead one
		return wire.ExitOK
	}

	lines := make(chan lineResult)
	stop := make(chan struct{})
	defer close(stop)
	go readLines(sess, lines, stop)

	moves := t.newMoveLimiter()
	for {
		select {
		case n := <-sess.Notices:
			return t.sayGoodbye(sess, n)
		case <-moves.held():
			moves.resume()
		case in, ok := <-moves.input(lines):
			if !ok {
				return wire.ExitOK // input closed: the game is kept for next time
			}
			var rp *readerPanic
			if errors.As(in.err, &rp) {
				return t.cfg.Panicked(sess, rp.value, rp.stack)
			}
			dir, perr := parseCommand(in)
			if perr == nil {
				perr = moves.take()
			}
			if perr != nil {
				if out.error(perr.Error(), play.State(engine.Result{})) != nil {
					return wire.ExitOK
				}
				continue
			}
			res, err := play.Move(sess.Context(), dir)
			switch {
			case errors.Is(err, game.ErrTakenOver):
				return t.sayGoodbye(sess, session.TakenOver)
			case errors.Is(err, game.ErrMovedAccount):
				return t.sayGoodbye(sess, session.Moved)
			case err != nil:
				wish.Errorln(sess, "ssh2048: could not save your move; the game is kept as it was before it.")
				return wire.ExitError
			}
			st := play.State(res)
			if out.state(st) != nil || st.Over {
				return wire.ExitOK
			}
		}
	}
}

// moveLimiter bounds the moves of one bot session (Limits.BotRate). Each
// move is a commit and a row kept for ever, and a bot can send them as
// fast as its link allows: one session played 66,022 moves in 150 s, and
// a few such take the disk that every player's moves wait on. A move over
// the rate is answered with an error line rather than delayed, so that
// the bot learns why and the protocol stays one answer per line; one that
// keeps to the rate never sees it. After a refusal the next line is read
// once a move is due again (the rest wait, within the session's bound on
// unread input: session.MaxUnreadInput), so that a
// flood is not answered with error lines as fast as the CPU writes them.
type moveLimiter struct {
	limit *rate.Limiter
	err   error
	wait  <-chan time.Time // after a refusal: fires when a move is due; nil otherwise
}

// newMoveLimiter returns the limiter of a bot session; nil (no limit)
// when BotRate is 0.
func (t *Table) newMoveLimiter() *moveLimiter {
	r := t.cfg.BotRate
	if r <= 0 {
		return nil
	}
	return &moveLimiter{
		limit: rate.NewLimiter(rate.Limit(r), max(int(r), 1)),
		err:   fmt.Errorf("too many moves: this server plays at most %g a second; this one was not played", r),
	}
}

// take takes a move's token, or says why the move is not played; the
// input is then held (see input) until a move is due.
func (m *moveLimiter) take() error {
	if m == nil || m.limit.Allow() {
		return nil
	}
	due := time.Duration((1 - m.limit.Tokens()) / float64(m.limit.Limit()) * float64(time.Second))
	m.wait = time.After(max(due, time.Millisecond))
	return m.err
}

// input is lines, or nil while the input is held after a refusal.
func (m *moveLimiter) input(lines chan lineResult) chan lineResult {
	if m != nil && m.wait != nil {
		return nil
	}
	return lines
}

// held fires when the input held after a refusal may be read again; nil
// (never) when it is not held.
func (m *moveLimiter) held() <-chan time.Time {
	if m == nil {
		return nil
	}
	return m.wait
}

// resume reads the input again.
func (m *moveLimiter) resume() { m.wait = nil }

// sayGoodbye tells the player why the session ends and returns the status.
func (t *Table) sayGoodbye(sess *session.Session, n session.Notice) int {
	wish.Errorln(sess, sess.Worded(t.prefixedText)(n))
	return n.ExitStatus()
}

// lineResult is one line of bot input, or why it could not be read.
type lineResult struct {
	line string
	err  error // errLineTooLong, or a *readerPanic; other errors end the input
}

// readerPanic is the last lineResult of a reader that panicked: the bot
// loop ends the session (Config.Panicked).
type readerPanic struct {
	value any
	stack []byte
}

func (rp *readerPanic) Error() string { return fmt.Sprintf("line reader panicked: %v", rp.value) }

// readLines feeds lines to out until the input ends or stop is closed. A
// panic while reading is passed on as a *readerPanic, before out closes.
func readLines(r io.Reader, out chan<- lineResult, stop <-chan struct{}) {
	defer close(out)
	defer func() {
		if v := recover(); v != nil {
			select {
			case out <- lineResult{err: &readerPanic{v, debug.Stack()}}:
			case <-stop:
			}
		}
	}()
	lr := newLineReader(r, wire.MaxLineBytes)
	for {
		line, err := lr.ReadLine()
		if err != nil && !errors.Is(err, errLineTooLong) {
			return
		}
		select {
		case out <- lineResult{line, err}:
		case <-stop:
			return
		}
	}
}

// parseCommand turns a line of bot input into a direction.
func parseCommand(in lineResult) (engine.Direction, error) {
	if in.err != nil {
		return 0, fmt.Errorf("line longer than %d bytes", wire.MaxLineBytes)
	}
	word := strings.TrimSpace(in.line)
	d, err := engine.ParseDirection(word)
	if err != nil {
		return 0, fmt.Errorf("unknown command %q: send up, down, left or right (u, d, l, r)", truncate(word, 16))
	}
	return d, nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// stateWriter writes protocol lines, each in one Write.
type stateWriter struct {
	w   io.Writer
	buf []byte
}

func (sw *stateWriter) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	sw.buf = append(append(sw.buf[:0], b...), '\n')
	_, err = sw.w.Write(sw.buf)
	return err
}

func (sw *stateWriter) state(st wire.State) error { return sw.line(st) }

// error writes an error line followed by the unchanged state.
func (sw *stateWriter) error(msg string, st wire.State) error {
	if err := sw.line(wire.Error{Error: msg}); err != nil {
		return err
	}
	return sw.line(st)
}
