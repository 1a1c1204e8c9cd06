package load

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	gossh "golang.org/x/crypto/ssh"
)

// The check compares each player's stored moves with what the player saw.
// Counting the keys answered by a frame is not exact: a move whose frame
// comes after --frame-timeout (a commit stuck behind a lock) is counted
// as a key that moved nothing, and its late frame is taken for the next
// key's answer, which, if that key moved too, leaves one move uncounted;
// a redraw nobody typed for (the rank read after a scoring move) that
// lands just after a key that moved nothing counts one too many. So, once
// a session has played, it reads the move count the game screen's header
// shows ("Moves 321"): the window is resized by a column, which makes the
// screen draw itself whole (erase, then every line), and those bytes are
// drawn into a virtual terminal.
//
// The count must be the last: the server applies a session's keys in
// order, each move committed before the next key is applied and before
// its frame is drawn, so when a commit is slow the keys behind it wait in
// the server, and a move can still be committing when the session stops.
// No pause in the output proves that none is left (a key that moves
// nothing draws nothing). A key that is always answered does: the help
// key, which the game screen applies in order behind every key before
// it, and answers with a screen that has no move count. Once that screen
// is shown, every key the session sent has been applied and its move
// committed; the help key again brings the game screen back, whose count
// is then final.

// helpKey opens the game screen's help, and closes it.
const helpKey = "?"

// redrawStart is how a whole redraw begins (package screen's renderer
// erases the screen first): what comes before it is drawn over.
const redrawStart = ansi.EraseEntireScreen

// maxRedrawBytes bounds what a session keeps of its last output: many
// times a whole 80×24 game screen in true colour, so that only a screen
// that never stops drawing reaches it.
const maxRedrawBytes = 1 << 20

// movesField is the header's move count.
var movesField = regexp.MustCompile(`\bMoves +([0-9]+)\b`)

// The steps of readScreenMoves.
const (
	awaitRedraw = iota // the whole redraw the resize asked for
	awaitHelp          // the help screen: every key before it applied
	awaitGame          // the game screen again, with its final count
)

// readScreenMoves reads the move count the game screen shows once every
// key the session sent has been applied, into s.screenMoves (s.screenRead):
// it has the screen redrawn whole, then presses the help key and waits for
// the help screen, then presses it again and reads the game screen's
// count. The screen is read each time the output pauses for settle (so
// that the server's key rate never drops the help key either). A
// screen whose whole redraw shows no move count, a session that ends, and
// a server that has not answered within ConnectTimeout leave screenRead
// unset: the session has no exact count (see verify).
func (s *session) readScreenMoves(ctx context.Context, sess *gossh.Session, in io.Writer, chunks <-chan chunk, keep *atomic.Bool) error {
	keep.Store(true)
	// A window of the same size is no change, and draws nothing.
	if err := sess.WindowChange(termHeight, termWidth+1); err != nil {
		return nil // the session is going: no count
	}
	// The bound is on the server: the time spent reading screens, which
	// waits for a terminal while every session reads its own, is added.
	until := time.Now().Add(s.cfg.ConnectTimeout)
	deadline := time.NewTimer(s.cfg.ConnectTimeout)
	defer deadline.Stop()
	quiet := time.NewTimer(settle)
	quiet.Stop()
	defer quiet.Stop()
	var out []byte
	step := awaitRedraw
	for {
		select {
		case c := <-chunks:
			if len(out)+len(c.data) > maxRedrawBytes {
				out = out[:0] // a screen that never stops drawing: not read
			}
			out = append(out, c.data...)
			if c.err != nil {
				return nil // the session ended: no count
			}
			quiet.Reset(settle)
			continue
		case <-quiet.C:
		case <-deadline.C:
			return nil // keys not yet applied, or no screen: no count
		case <-ctx.Done():
			return ctx.Err()
		}
		i := bytes.LastIndex(out, []byte(redrawStart))
		if i < 0 {
			continue
		}
		out = out[i:]
		t0 := time.Now()
		n, shown := s.terms.headerMoves(out, termWidth+1, termHeight)
		until = until.Add(time.Since(t0))
		deadline.Reset(time.Until(until))
		switch {
		case step == awaitRedraw && !shown:
			return nil // a screen with no move count
		case step == awaitGame && shown:
			s.screenMoves, s.screenRead = n, true
			return nil
		case step == awaitRedraw, step == awaitHelp && !shown:
			// Press the help key: first to reach the help screen behind
			// every key sent, then to leave it.
			if _, err := io.WriteString(in, helpKey); err != nil {
				return nil
			}
			step++
		}
	}
}

// maxTerminals bounds the virtual terminals of a run.
const maxTerminals = 4

// terminals lends the virtual terminals that read screens, at most a few
// at once (all sessions end together), and keeps them for the next
// screen: making one costs more than reading a screen with it (its
// parser's buffer is megabytes).
type terminals struct {
	slots chan struct{}  // one for each terminal lent
	idle  chan *terminal // made and not lent
	mu    sync.Mutex
	all   []*terminal
}

// terminal is a virtual terminal and the end of its reader.
type terminal struct {
	vt      *vt.Emulator
	drained chan struct{}
}

func newTerminals(n int) *terminals {
	return &terminals{slots: make(chan struct{}, n), idle: make(chan *terminal, n)}
}

// get lends a terminal of w×h, made if none is idle.
func (p *terminals) get(w, h int) *terminal {
	p.slots <- struct{}{}
	select {
	case t := <-p.idle:
		if t.vt.Width() != w || t.vt.Height() != h {
			t.vt.Resize(w, h)
		}
		return t
	default:
	}
	t := &terminal{vt: vt.NewEmulator(w, h), drained: make(chan struct{})}
	// The terminal answers queries on its input side, a pipe that blocks
	// its Write until they are read; nobody needs them.
	go func() {
		defer close(t.drained)
		io.Copy(io.Discard, t.vt) //nolint:errcheck // what it answers is dropped
	}()
	p.mu.Lock()
	p.all = append(p.all, t)
	p.mu.Unlock()
	return t
}

func (p *terminals) put(t *terminal) {
	p.idle <- t
	<-p.slots
}

// close ends the terminals' readers, once none is lent. Each pipe is
// closed at its writing end: Emulator.Close would race with the Read in
// progress (x/vt v0.1.0 marks itself closed unguarded).
func (p *terminals) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range p.all {
		if c, ok := t.vt.InputPipe().(io.Closer); ok {
			c.Close()
			<-t.drained
		}
	}
	p.all = nil
}

// resetTerminal ends whatever sequence the last screen left unfinished
// (CAN) and resets the terminal (RIS): modes, pen, both screens.
const resetTerminal = "\x18\x1bc"

// headerMoves draws a whole redraw of a w×h screen and reads the move
// count it shows.
func (p *terminals) headerMoves(redraw []byte, w, h int) (int, bool) {
	t := p.get(w, h)
	defer p.put(t)
	if _, err := t.vt.WriteString(resetTerminal); err != nil {
		return 0, false
	}
	if _, err := t.vt.Write(redraw); err != nil {
		return 0, false
	}
	m := movesField.FindStringSubmatch(t.vt.String())
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}
