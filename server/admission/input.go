package admission

import (
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/ssh2048/ssh2048/internal/workers"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
)

// What a client sends on a session is read as it comes and held here,
// in one buffer, until the session's handler takes it; no more than
// session.MaxUnreadInput of it. Left to the SSH library, what a handler
// has not read yet stays in the channel's window, which is 2 MiB and
// cannot be made smaller, and is kept packet by packet: a client that
// sent it a byte to a packet made the server hold about 50 bytes for
// each (the packet, its framing and a link to the next), some 100 MB for
// one session. Sessions that read nothing for a while are ordinary: one
// that has not started a command yet, a bot in a race's lobby or waiting
// out its move rate, a screen whose client does not take its frames.
//
// A client that gets further ahead than the bound is told why and its
// session ends (session.Flooded); what it sends after that is read and
// dropped. Extended data (a client's stderr), which nothing on the server
// reads, is read and dropped as it comes.
//
// A handler may take its input pushed rather than read it (PushInput): a
// game screen does, so that the session's reader here is the only
// goroutine waiting for the client's keys, where a reader of the
// screen's own would be a second one, with its stack, for every screen
// held. Pushed input is handed over on a worker (internal/workers), one
// piece at a time, in order; what comes while the handler is kept busy is
// held under the same bound.

// unreadInput is a session's input read from its channel and not yet
// taken by its handler.
type unreadInput struct {
	mu      sync.Mutex
	arrived sync.Cond // input came, the channel ended, or the session flooded
	held    []byte    // read, not yet taken: held[taken:]
	taken   int
	err     error // the input's end, once it came: given after what is held
	flooded bool  // over the bound: nothing more is held, and Read waits for closed
	closed  bool  // the channel is closed

	// deliver, once set (push), is handed what comes instead of Read;
	// delivering while a worker hands it over, ended once it was told of err.
	deliver    func([]byte, error)
	delivering bool
	ended      bool
}

// keptCapacity is the largest buffer kept once it is empty: a session
// that took a burst lets the rest go.
const keptCapacity = 4 << 10

func newUnreadInput() *unreadInput {
	u := &unreadInput{}
	u.arrived.L = &u.mu
	return u
}

// fill reads ch until it ends, holding what it reads; the first read that
// takes what is held over the bound starts flooded, once, on a goroutine
// of its own: it writes to the client, which may block on a client that
// reads nothing, and fill must go on reading (and dropping) meanwhile, or
// the SSH library would hold what comes.
func (u *unreadInput) fill(ch io.Reader, flooded func()) {
	// Small: it is held for the session's life, and keys come a few
	// bytes at a time; a paste takes more reads.
	var chunk [128]byte
	for {
		n, err := ch.Read(chunk[:])
		u.mu.Lock()
		over := false
		if !u.flooded && n > 0 {
			if len(u.held)-u.taken+n > session.MaxUnreadInput {
				u.flooded, over = true, true
				u.held, u.taken = nil, 0
			} else {
				u.hold(chunk[:n])
			}
		}
		if err != nil {
			u.err = err
		}
		u.arrived.Signal()
		hand := u.handOver()
		u.mu.Unlock()
		if over {
			go flooded()
		}
		if hand {
			workers.Go(u.drain)
		}
		if err != nil {
			return
		}
	}
}

// hold appends p to what is held, moving what is left to the front of
// the buffer when that saves growing it. u.mu is held.
func (u *unreadInput) hold(p []byte) {
	if u.taken > 0 && len(u.held)+len(p) > cap(u.held) {
		u.held = u.held[:copy(u.held, u.held[u.taken:])]
		u.taken = 0
	}
	u.held = append(u.held, p...)
}

// close tells a Read waiting after a flood that the channel is closed.
func (u *unreadInput) close() {
	u.mu.Lock()
	u.closed = true
	u.arrived.Broadcast()
	u.mu.Unlock()
}

// push hands what comes, and what is held, to deliver rather than to
// Read: each piece once, in order, then deliver(nil, err) with the
// channel's end. deliver runs on a worker and may wait; it must not
// panic.
func (u *unreadInput) push(deliver func([]byte, error)) {
	u.mu.Lock()
	u.deliver = deliver
	hand := u.handOver()
	u.mu.Unlock()
	if hand {
		workers.Go(u.drain)
	}
}

// handOver reports whether a worker must start handing input over: it is
// pushed, there is something to hand, and no worker is at it. u.mu is
// held.
func (u *unreadInput) handOver() bool {
	if u.deliver == nil || u.delivering || u.ended || (u.taken == len(u.held) && u.err == nil) {
		return false
	}
	u.delivering = true
	return true
}

// drain hands what is held to deliver until nothing is.
func (u *unreadInput) drain() {
	for {
		u.mu.Lock()
		piece, err := u.held[u.taken:], u.err
		switch {
		case len(piece) > 0:
			u.held, u.taken = nil, 0 // the piece's now, until deliver is done with it
		case err != nil && !u.ended:
			u.ended = true
		default:
			u.delivering = false
			u.mu.Unlock()
			return
		}
		u.mu.Unlock()
		if len(piece) == 0 {
			u.deliver(nil, err)
			continue
		}
		u.deliver(piece, nil)
		u.mu.Lock()
		if u.held == nil && cap(piece) <= keptCapacity {
			u.held = piece[:0] // nothing came meanwhile: the buffer serves again
		}
		u.mu.Unlock()
	}
}

// Read takes what is held, waiting for input when nothing is. After a
// flood it waits for the channel to close, even past the end of the
// input (a client that closed its input after the flood): a handler told
// to end (Flooded) must not take an end of input for a client that
// left.
func (u *unreadInput) Read(p []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for u.taken == len(u.held) {
		switch {
		case u.flooded && u.closed:
			return 0, io.EOF
		case u.err != nil && !u.flooded:
			return 0, u.err
		}
		u.arrived.Wait()
	}
	n := copy(p, u.held[u.taken:])
	u.taken += n
	if u.taken == len(u.held) {
		u.taken = 0
		u.held = u.held[:0]
		if cap(u.held) > keptCapacity {
			u.held = nil
		}
	}
	return n, nil
}

// readInput keeps the session's input read (see unreadInput), from the
// moment its channel is accepted until it closes.
func (b *boundedSession) readInput() {
	defer b.g.a.recoverConn("session input", b.g.Conn)
	b.input.fill(b.Channel, b.flooded)
}

// PushInput hands the session's input to deliver as it comes, rather
// than to Read (see unreadInput.push); it always can.
func (b *boundedSession) PushInput(deliver func([]byte, error)) bool {
	b.input.push(func(p []byte, err error) {
		defer b.g.a.recoverConn("session input", b.g.Conn)
		deliver(p, err)
	})
	return true
}

// dropStderr reads and drops what the client sends on its stderr.
func (b *boundedSession) dropStderr() {
	defer b.g.a.recoverConn("session stderr", b.g.Conn)
	stderr := b.Channel.Stderr()
	var chunk [64]byte
	for {
		if _, err := stderr.Read(chunk[:]); err != nil {
			return
		}
	}
}

// flooded ends a session whose client got more than the bound ahead of
// it. A handler that runs is told (it says why and exits with its
// status), and the channel closes endGrace later if it has not by then;
// a session that started nothing says why itself.
func (b *boundedSession) flooded() {
	defer b.g.a.recoverConn("session flood", b.g.Conn)
	b.mu.Lock()
	b.flood = true
	sess, started := b.sess, b.started
	b.mu.Unlock()
	b.g.a.lines.Log(b.g.a.log, slog.LevelInfo, "input flood; session closed", "remote", b.g.remote, "unread", session.MaxUnreadInput)
	switch {
	case sess != nil:
		sess.Notify(session.Flooded)
	case !started:
		_, _ = io.WriteString(b.Channel.Stderr(), "ssh2048: "+session.FloodedText+"\n")
		_ = b.Exit(wire.ExitFlooded)
		return
	}
	// A handler that started joins (attach) and is told then.
	time.AfterFunc(endGrace, func() { _ = b.Close() })
}

// attach makes sess the session that b's handler runs, told why if its
// client floods it.
func (b *boundedSession) attach(sess *session.Session) {
	b.mu.Lock()
	b.sess = sess
	flood := b.flood
	b.mu.Unlock()
	if flood {
		sess.Notify(session.Flooded)
	}
}
