package load

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strconv"
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

// redrawStart is how a whole redraw begins (package screen's renderer
// erases the screen first): what comes before it is drawn over.
const redrawStart = ansi.EraseEntireScreen

// maxRedrawBytes bounds what a session keeps of its last output: a whole
// 80×24 game screen in true colour is under 16 KB.
const maxRedrawBytes = 1 << 20

// emulators bounds the virtual terminals alive at once: all sessions end
// together, and a terminal is some hundreds of kilobytes while it lives.
var emulators = make(chan struct{}, 4)

// movesField is the header's move count.
var movesField = regexp.MustCompile(`\bMoves +([0-9]+)\b`)

// readScreenMoves has the screen redrawn whole and reads the move count its
// header shows into s.screenMoves (s.screenRead). Output keeps being read
// until it has paused for FrameTimeout, so that a frame still coming (a
// late move's) is on the screen read. A screen that does not redraw, or
// shows no move count, leaves screenRead unset, and the check falls back
// on the keys answered by a frame.
func (s *session) readScreenMoves(ctx context.Context, sess *gossh.Session, chunks <-chan chunk, keep *atomic.Bool) error {
	keep.Store(true)
	// A window of the same size is no change, and draws nothing.
	if err := sess.WindowChange(termHeight, termWidth+1); err != nil {
		return nil // the session is going; its moves are counted by frames
	}
	deadline := time.NewTimer(s.cfg.ConnectTimeout)
	defer deadline.Stop()
	var quiet <-chan time.Time
	var out []byte
	for {
		select {
		case c := <-chunks:
			if len(out)+len(c.data) > maxRedrawBytes {
				out = out[:0] // a screen that never stops drawing: not read
			}
			out = append(out, c.data...)
			if c.err != nil {
				return nil // the session ended after play: its moves are counted by frames
			}
			quiet = time.After(s.cfg.FrameTimeout)
			continue
		case <-quiet:
		case <-deadline.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		break
	}
	i := bytes.LastIndex(out, []byte(redrawStart))
	if i < 0 {
		return nil
	}
	s.screenMoves, s.screenRead = headerMoves(out[i:], termWidth+1, termHeight)
	return nil
}

// headerMoves draws a whole redraw of a w×h screen and reads the move
// count it shows.
func headerMoves(redraw []byte, w, h int) (int, bool) {
	emulators <- struct{}{}
	defer func() { <-emulators }()
	term := vt.NewEmulator(w, h)
	// The terminal answers queries on its input side, a pipe that blocks
	// its Write until they are read; nobody needs them. The pipe is
	// closed at its writing end: Emulator.Close would race with the Read
	// in progress (x/vt v0.1.0 marks itself closed unguarded).
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(io.Discard, term) //nolint:errcheck // what it answers is dropped
	}()
	defer func() {
		if c, ok := term.InputPipe().(io.Closer); ok {
			c.Close()
			<-drained
		}
	}()
	if _, err := term.Write(redraw); err != nil {
		return 0, false
	}
	m := movesField.FindStringSubmatch(term.String())
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}
