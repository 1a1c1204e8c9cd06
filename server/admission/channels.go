package admission

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/internal/cmdline"
	"github.com/ssh2048/ssh2048/internal/flagtext"
	"github.com/ssh2048/ssh2048/server/session"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/time/rate"
)

// What one logged-in connection can make the server hold is bounded here,
// below the SSH library, which keeps whatever a client sends: every env
// request is appended to the session and held until the connection
// closes, so a client sending them in a loop grows the server's memory
// without end, and every session channel opened costs its buffers and a
// goroutine whether a command ever runs on it or not, so one connection
// can hold any number of channels that never start (the commit that
// brought these bounds in quotes what both cost without them). So:
//   - session channels open at once on a connection, started or not, are
//     capped by MaxSessionsPerConn, and how fast they are opened by
//     SessionRatePerConn (after a burst of sessionBurst): the client is
//     refused with ResourceShortage and a reason;
//   - a session that has not started a command or a shell within the
//     login grace (a client gets as long to start a session as to log
//     in) is closed;
//   - a session takes at most maxEnvVars environment variables and
//     maxEnvBytes bytes of them; more are answered false;
//   - what the client sends is read as it comes and a session holds at
//     most session.MaxUnreadInput of it (input.go);
//   - requests the server does not serve (subsystems, agent and X11
//     forwarding, anything unknown, global requests) and channels of other
//     types are refused, and a client that goes on making the server
//     refuse things faster than refusalRate a second, after a burst of
//     refusalBurst, has its connection closed.
const (
	sessionBurst = 20
	maxEnvVars   = 32
	maxEnvBytes  = 4096
	refusalRate  = rate.Limit(10)
	refusalBurst = 256
)

// Reasons given with a refused session channel (OpenSSH prints them:
// "open failed: resource shortage: …").
const (
	whyTooManySessions = "too many sessions on this connection; close one first"
	whyTooFast         = "sessions opened too fast on this connection; wait a moment"
)

// OpenSession is the handler of "session" channels. Under Serve (a
// guarded connection), the session is the server's own boundedSession
// rather than the SSH library's: its request loop applies the bounds
// above as it serves each request (see serve), where the library's
// session would need a second goroutine to filter its requests (one more
// stack for every session held).
func (a *Admission) OpenSession(srv *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	g := guardOf(ctx)
	if g == nil { // not accepted through Serve: nothing to count against
		ssh.DefaultSessionHandler(srv, conn, nc, ctx)
		return
	}
	if why := g.openChannel(time.Now()); why != "" {
		_ = nc.Reject(gossh.ResourceShortage, why)
		g.refused("session refused", "reason", why)
		return
	}
	b := &boundedSession{g: g, conn: conn, handler: srv.Handler, refs: 1}
	ch, in, err := nc.Accept()
	if err != nil {
		b.release()
		return
	}
	bctx, cancel := context.WithCancel(ctx)
	b.Channel = ch
	b.input = newUnreadInput()
	go b.readInput()
	go b.dropStderr()
	b.in, b.closed = in, cancel
	b.ctx = &sessionContext{Context: ctx, done: bctx, b: b}
	b.mu.Lock()
	b.startWait = time.AfterFunc(a.lim.LoginGrace, b.neverStarted)
	b.mu.Unlock()
	// Returns when the channel's requests end (the channel is closed), or
	// when a game screen's handler takes them over.
	b.serve()
}

// OtherChannel refuses channels of every type but "session" (port
// forwarding and the like, which the server does not offer).
func (a *Admission) OtherChannel(_ *ssh.Server, _ *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	_ = nc.Reject(gossh.UnknownChannelType, "unsupported channel type")
	if g := guardOf(ctx); g != nil {
		g.refused("channel refused", "type", nc.ChannelType())
	}
}

// GlobalRequest answers every global request false (the server serves
// none: port forwarding, keepalives from clients); each counts as refused.
func (a *Admission) GlobalRequest(ctx ssh.Context, _ *ssh.Server, req *gossh.Request) (bool, []byte) {
	if g := guardOf(ctx); g != nil {
		g.refused("request refused", session.ClientAttrs("type", req.Type)...)
	}
	return false, nil
}

// openChannel counts a session channel in, or says why not.
func (g *guardedConn) openChannel(now time.Time) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if limit := g.a.lim.MaxSessionsPerConn; limit > 0 && g.channels >= limit {
		return whyTooManySessions
	}
	if g.sessionRate != nil && !g.sessionRate.AllowN(now, 1) {
		return whyTooFast
	}
	g.channels++
	return ""
}

func (g *guardedConn) closeChannel() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.channels--
}

// refused counts something refused to the client, logs it (limited), and
// closes the connection of a client that keeps making the server refuse
// things: each refusal is cheap, but a loop of them costs CPU and log for
// nothing.
func (g *guardedConn) refused(msg string, args ...any) {
	g.mu.Lock()
	flood := !g.refusals.AllowN(time.Now(), 1)
	g.mu.Unlock()
	g.a.lines.Log(g.a.log, slog.LevelInfo, msg, append(args, "remote", g.remote)...)
	if flood {
		g.a.lines.Log(g.a.log, slog.LevelWarn, "refusal flood; connection closed", "remote", g.remote)
		g.Conn.Close()
	}
}

// boundedSession is a session channel under the bounds, and the
// ssh.Session its handler is given: what the SSH library's session does
// for this server (an emulated PTY, window changes, env, shell and exec),
// with each request checked (see check) before it is served.
type boundedSession struct {
	gossh.Channel
	conn    *gossh.ServerConn
	handler ssh.Handler
	g       *guardedConn
	ctx     *sessionContext
	in      <-chan *gossh.Request
	closed  context.CancelFunc // ends ctx: the channel's requests ended
	input   *unreadInput       // what the client sent, until the handler reads it (input.go)
	// inline is set when the handler runs on the request loop's own
	// goroutine (see serve); the handler then serves the requests while it
	// waits (ServesRequests).
	inline bool

	mu        sync.Mutex
	refs      int // the request loop, and the handler once it started
	started   bool
	exited    bool
	envVars   int
	envBytes  int
	env       []string
	rawCmd    string
	pty       *ssh.Pty
	winch     chan ssh.Window
	startWait *time.Timer
	sess      *session.Session // the handler's, once it joined (attach)
	flood     bool             // the client got too far ahead of the handler (flooded)
}

var _ ssh.Session = (*boundedSession)(nil)

// channel is the session's channel, nil before it is accepted.
func (b *boundedSession) channel() gossh.Channel {
	return b.Channel
}

// serve answers the channel's requests until the channel closes: those
// the session may have are served, the others answered false.
//
// A screen (a shell, or a command that opens one such as race or watch,
// with a PTY) takes the requests over: its handler serves them while it
// waits (the server's screen loop), and the rest after it returns, and this
// goroutine ends. One goroutine, and its
// stack, fewer for every screen held; and the one that stays is new, its
// stack no larger than the handler needs, where this one's grew with the
// writes of the channel's opening and first replies. Requests that come
// while the handler sets up wait in the SSH library's queue for the
// channel. Any other session's handler runs on a goroutine of its own,
// as it may not wait where requests are served.
func (b *boundedSession) serve() {
	defer b.g.a.recoverConn("session requests", b.g.Conn)
	handedOver := false
	defer func() {
		if !handedOver {
			b.finish()
		}
	}()
	for req := range b.in {
		if !b.serveRequest(req) {
			continue
		}
		if b.pty != nil && (req.Type == "shell" || b.g.a.opensScreen(b.Command())) {
			b.inline = true
			handedOver = true
			go b.runServing()
			return
		}
		go b.run()
	}
}

// runServing runs a game screen's handler, which serves the channel's
// requests while it waits, then serves the rest until the channel closes.
func (b *boundedSession) runServing() {
	defer b.g.a.recoverConn("session requests", b.g.Conn)
	defer b.finish()
	b.run()
	for req := range b.in {
		b.serveRequest(req) // a second start is refused by check
	}
}

// finish lets go of a session whose requests have ended: its window
// changes end, its context is done, and its place under the cap comes
// back once its handler, if any, is done too.
func (b *boundedSession) finish() {
	b.mu.Lock()
	if b.winch != nil {
		close(b.winch)
	}
	b.mu.Unlock()
	b.stopTimer()
	b.input.close()
	b.closed()
	b.release()
}

// serveRequest serves one request, or refuses it, and reports whether it
// started the session's handler, which the caller runs.
func (b *boundedSession) serveRequest(req *gossh.Request) (start bool) {
	if why, args := b.check(req); why != "" {
		_ = req.Reply(false, nil)
		b.g.refused(why, args...)
		return false
	}
	return b.handle(req)
}

// ServesRequests returns the channel's requests and the function that
// serves each, for a handler that waits on the request loop's goroutine
// (see serve) to serve them while it waits; ok is false for any other
// handler. done is to be called when the requests end: the channel is
// closed, and the session's context ends.
func ServesRequests(ctx context.Context) (reqs <-chan *gossh.Request, serve func(*gossh.Request), done func(), ok bool) {
	b := boundedOf(ctx)
	if b == nil || !b.inline {
		return nil, nil, nil, false
	}
	return b.in, func(req *gossh.Request) {
		// Deep work (a reply is a write through the cipher) on a stack
		// that goes when it is done (see session.OnFreshStack); a second start is
		// refused by check.
		session.OnFreshStack(func() { b.serveRequest(req) })
	}, b.closed, true
}

// check says why req is refused, with what to log, or "".
func (b *boundedSession) check(req *gossh.Request) (string, []any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch req.Type {
	case "env":
		var kv struct{ Key, Value string }
		if err := gossh.Unmarshal(req.Payload, &kv); err != nil || b.started {
			return "env refused", nil
		}
		n := len(kv.Key) + len(kv.Value)
		if b.envVars >= maxEnvVars || b.envBytes+n > maxEnvBytes {
			return "env refused", append(session.ClientAttrs("name", kv.Key), "vars", b.envVars, "bytes", b.envBytes+n)
		}
	case "shell", "exec":
		// One handler per session, and none once the client flooded it.
		if b.started || b.flood {
			return "request refused", []any{"type", req.Type}
		}
	case "pty-req", "window-change", "signal", "break":
		// Bounded by handle: one PTY, and one window size kept.
	default:
		return "request refused", session.ClientAttrs("type", req.Type)
	}
	return "", nil
}

// handle serves a request check let through, as the SSH library's
// session does, but for what that does not bound: window changes do not
// wait for the handler to take them (the newest size replaces one not yet
// taken), and signals and breaks, which nothing here takes, are answered
// false rather than kept.
func (b *boundedSession) handle(req *gossh.Request) (start bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ok := false
	switch req.Type {
	case "env":
		var kv struct{ Key, Value string }
		if gossh.Unmarshal(req.Payload, &kv) == nil {
			b.envVars++
			b.envBytes += len(kv.Key) + len(kv.Value)
			b.env = append(b.env, kv.Key+"="+kv.Value)
			ok = true
		}
	case "shell", "exec":
		var cmd struct{ Value string }
		if req.Type == "exec" && gossh.Unmarshal(req.Payload, &cmd) != nil {
			break
		}
		b.rawCmd = cmd.Value
		b.started = true
		b.refs++ // the handler's, given back by release when it returns
		if b.startWait != nil {
			b.startWait.Stop()
			b.startWait = nil
		}
		ok, start = true, true
	case "pty-req":
		var p struct {
			Term                  string
			Columns, Rows, Wp, Hp uint32
			Modes                 string
		}
		if b.started || b.pty != nil || gossh.Unmarshal(req.Payload, &p) != nil {
			break
		}
		b.pty = &ssh.Pty{Term: p.Term, Window: window(p.Columns, p.Rows, p.Wp, p.Hp)}
		b.winch = make(chan ssh.Window, 1)
		b.winch <- b.pty.Window
		ok = true
	case "window-change":
		var w struct{ Columns, Rows, Wp, Hp uint32 }
		if b.pty == nil || gossh.Unmarshal(req.Payload, &w) != nil {
			break
		}
		b.pty.Window = window(w.Columns, w.Rows, w.Wp, w.Hp)
		for sent := false; !sent; {
			select {
			case b.winch <- b.pty.Window:
				sent = true
			default:
				select {
				case <-b.winch: // superseded
				default:
				}
			}
		}
		ok = true
	}
	if req.WantReply {
		_ = req.Reply(ok, nil)
	}
	return start
}

func window(cols, rows, wp, hp uint32) ssh.Window {
	return ssh.Window{Width: int(cols), Height: int(rows), WidthPixels: int(wp), HeightPixels: int(hp)}
}

// run runs the session's handler, and ends the session when it returns.
func (b *boundedSession) run() {
	defer b.g.a.recoverConn("session handler", b.g.Conn)
	b.handler(b)
	_ = b.Exit(0)
}

func (b *boundedSession) User() string         { return b.conn.User() }
func (b *boundedSession) RemoteAddr() net.Addr { return b.conn.RemoteAddr() }
func (b *boundedSession) LocalAddr() net.Addr  { return b.conn.LocalAddr() }
func (b *boundedSession) Context() ssh.Context { return b.ctx }
func (b *boundedSession) Subsystem() string    { return "" } // refused

// Signals and Break take nothing: the server has no process to signal,
// and such requests are answered false.
func (b *boundedSession) Signals(chan<- ssh.Signal) {}
func (b *boundedSession) Break(chan<- bool)         {}

func (b *boundedSession) Environ() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.env...)
}

func (b *boundedSession) RawCommand() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rawCmd
}

// Command is the command line split by a shell's quoting rules
// (package cmdline); nil when its quoting is broken, which the command
// table tells the client.
func (b *boundedSession) Command() []string {
	cmd, _ := cmdline.Split(b.RawCommand())
	return cmd
}

func (b *boundedSession) PublicKey() ssh.PublicKey {
	k, _ := b.ctx.Value(ssh.ContextKeyPublicKey).(ssh.PublicKey)
	return k
}

func (b *boundedSession) Permissions() ssh.Permissions {
	if p, ok := b.ctx.Value(ssh.ContextKeyPermissions).(*ssh.Permissions); ok {
		return *p
	}
	return ssh.Permissions{}
}

// EmulatedPty is true once the session has a PTY: the server has no
// terminal device behind one, and Write turns LF into CR LF as a
// terminal's would, as the SSH library's emulated PTY does.
func (b *boundedSession) EmulatedPty() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pty != nil
}

func (b *boundedSession) Pty() (ssh.Pty, <-chan ssh.Window, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pty == nil {
		return ssh.Pty{}, b.winch, false
	}
	return *b.pty, b.winch, true
}

// Read is the client's input, as the session holds it (unreadInput).
func (b *boundedSession) Read(p []byte) (int, error) {
	return b.input.Read(p)
}

func (b *boundedSession) Write(p []byte) (int, error) {
	if b.EmulatedPty() {
		return ssh.NewPtyWriter(b.Channel).Write(p)
	}
	return b.Channel.Write(p)
}

func (b *boundedSession) Stderr() io.ReadWriter {
	if b.EmulatedPty() {
		return wordWrapper{ssh.NewPtyReadWriter(b.Channel.Stderr()), b}
	}
	return b.Channel.Stderr()
}

// wordWrapper wraps what is written at spaces to the width of the
// session's window. A terminal left to wrap a line longer than its window
// cuts it where the window ends, inside a word. Each Write is wrapped on
// its own: the commands write their lines whole. Without a terminal a
// message stays on one line, for scripts.
type wordWrapper struct {
	io.ReadWriter
	b *boundedSession
}

func (w wordWrapper) Write(p []byte) (int, error) {
	width := 0
	w.b.mu.Lock()
	if w.b.pty != nil {
		width = w.b.pty.Window.Width
	}
	w.b.mu.Unlock()
	if width <= 0 {
		return w.ReadWriter.Write(p)
	}
	if _, err := io.WriteString(w.ReadWriter, flagtext.Wrap(string(p), width, "", "")); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Exit sends the exit status and closes the channel.
func (b *boundedSession) Exit(code int) error {
	b.mu.Lock()
	if b.exited {
		b.mu.Unlock()
		return errors.New("session: Exit called twice")
	}
	b.exited = true
	b.mu.Unlock()
	status := struct{ Status uint32 }{uint32(code)}
	if _, err := b.SendRequest("exit-status", false, gossh.Marshal(&status)); err != nil {
		return fmt.Errorf("session: exit status: %w", err)
	}
	return b.Close()
}

// neverStarted closes a session channel that has not started anything
// within the login grace.
func (b *boundedSession) neverStarted() {
	defer b.g.a.recoverConn("session start", b.g.Conn)
	b.mu.Lock()
	started := b.started
	b.mu.Unlock()
	if !started {
		b.g.a.lines.Log(b.g.a.log, slog.LevelInfo, "session never started", "remote", b.g.remote, "after", b.g.a.lim.LoginGrace)
		_ = b.Close()
	}
}

func (b *boundedSession) stopTimer() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.startWait != nil {
		b.startWait.Stop()
	}
}

// release gives back one reference; the last gives the session's place
// under the cap back to the connection.
func (b *boundedSession) release() {
	b.mu.Lock()
	b.refs--
	last := b.refs == 0
	b.mu.Unlock()
	if last {
		b.g.closeChannel()
	}
}

// sessionContext is the context of one session: the connection's (values
// and all), done when the connection closes or when the session's channel
// does. A game screen whose client closed its channel without closing the
// connection ends then, rather than when the connection does.
type sessionContext struct {
	ssh.Context
	done context.Context
	b    *boundedSession
}

var boundedKey = &contextKey{"bounded session"}

func (c *sessionContext) Done() <-chan struct{}       { return c.done.Done() }
func (c *sessionContext) Err() error                  { return c.done.Err() }
func (c *sessionContext) Deadline() (time.Time, bool) { return c.done.Deadline() }

// AfterFunc lets a context made from this one (context.WithCancel, as a
// race screen's is) hang on the session's own cancellation. Without it,
// package context cannot see through this type and starts a goroutine
// per derived context to wait for Done: one for every racer's screen.
func (c *sessionContext) AfterFunc(f func()) (stop func() bool) {
	return context.AfterFunc(c.done, f)
}

func (c *sessionContext) Value(key any) any {
	if key == boundedKey {
		return c.b
	}
	return c.Context.Value(key)
}

// Release gives back the place under MaxSessionsPerConn of the session
// of ctx once its handler is done: the place comes back when both its
// channel and its handler are done. A no-op for any other session.
func Release(ctx context.Context) {
	if b := boundedOf(ctx); b != nil {
		b.release()
	}
}

// Channel is the channel of the session of ctx, for a screen to write to
// as it is, without the emulated PTY's line feed translation; nil for a
// session that is not the admission's, or not accepted yet.
func Channel(ctx context.Context) gossh.Channel {
	if b := boundedOf(ctx); b != nil {
		return b.channel()
	}
	return nil
}

// boundedOf is the bounded session a session's context belongs to, if any.
func boundedOf(ctx context.Context) *boundedSession {
	b, _ := ctx.Value(boundedKey).(*boundedSession)
	return b
}
