package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/time/rate"
)

// What one logged-in connection can make the server hold is bounded here,
// below the SSH library, which keeps whatever a client sends: every env
// request is appended to the session (100,000 requests of 1 KB took the
// server from 18 MB to 169 MB, held until the connection closed), and
// every session channel opened costs its buffers and a goroutine whether a
// command ever runs on it or not (20,000 never-started channels on one
// connection, ~6 KB each). So:
//   - session channels open at once on a connection, started or not, are
//     capped by MaxSessionsPerConn, and how fast they are opened by
//     SessionRatePerConn (after a burst of sessionBurst): the client is
//     refused with ResourceShortage and a reason;
//   - a session that has not started a command or a shell within the
//     login grace (a client gets as long to start a session as to log
//     in) is closed;
//   - a session takes at most maxEnvVars environment variables and
//     maxEnvBytes bytes of them; more are answered false;
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

// openSession is the handler of "session" channels: the SSH library's
// own, behind the bounds above.
func (s *Server) openSession(srv *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
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
	b := &boundedSession{NewChannel: nc, g: g, refs: 1}
	defer b.release()
	defer b.stopTimer()
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.ctx = &sessionContext{Context: ctx, done: bctx, b: b}
	// Returns when the channel's requests end: the channel is closed.
	ssh.DefaultSessionHandler(srv, conn, b, b.ctx)
}

// otherChannel refuses channels of every type but "session" (port
// forwarding and the like, which the server does not offer).
func (s *Server) otherChannel(_ *ssh.Server, _ *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	_ = nc.Reject(gossh.UnknownChannelType, "unsupported channel type")
	if g := guardOf(ctx); g != nil {
		g.refused("channel refused", "type", nc.ChannelType())
	}
}

// globalRequest answers every global request false (the server serves
// none: port forwarding, keepalives from clients); each counts as refused.
func (s *Server) globalRequest(ctx ssh.Context, _ *ssh.Server, req *gossh.Request) (bool, []byte) {
	if g := guardOf(ctx); g != nil {
		g.refused("request refused", clientAttrs("type", req.Type)...)
	}
	return false, nil
}

// openChannel counts a session channel in, or says why not.
func (g *guardedConn) openChannel(now time.Time) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if limit := g.srv.lim.MaxSessionsPerConn; limit > 0 && g.channels >= limit {
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
	g.srv.limited.log(g.srv.log, slog.LevelInfo, msg, append(args, "remote", g.remote)...)
	if flood {
		g.srv.limited.log(g.srv.log, slog.LevelWarn, "refusal flood; connection closed", "remote", g.remote)
		g.Conn.Close()
	}
}

// boundedSession is a session channel under the bounds: it filters the
// channel's requests before the SSH library's session sees them.
type boundedSession struct {
	gossh.NewChannel
	g   *guardedConn
	ctx *sessionContext

	mu        sync.Mutex
	ch        gossh.Channel
	refs      int // the request loop, and the handler once it started
	started   bool
	envVars   int
	envBytes  int
	startWait *time.Timer
}

// Accept accepts the channel and filters its requests (see check).
func (b *boundedSession) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, in, err := b.NewChannel.Accept()
	if err != nil {
		return nil, nil, err
	}
	out := make(chan *gossh.Request)
	b.mu.Lock()
	b.ch = ch
	b.startWait = time.AfterFunc(b.g.srv.lim.LoginGrace, b.neverStarted)
	b.mu.Unlock()
	go b.filter(in, out)
	return ch, out, nil
}

// channel is the session's channel, nil before it is accepted.
func (b *boundedSession) channel() gossh.Channel {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ch
}

// filter passes the requests the session may have on to out, in order,
// and answers the others false.
func (b *boundedSession) filter(in <-chan *gossh.Request, out chan<- *gossh.Request) {
	defer close(out)
	defer b.g.srv.recoverConn("session requests", b.g.Conn)
	for req := range in {
		if why, args := b.check(req); why != "" {
			_ = req.Reply(false, nil)
			b.g.refused(why, args...)
			continue
		}
		out <- req
	}
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
			return "env refused", append(clientAttrs("name", kv.Key), "vars", b.envVars, "bytes", b.envBytes+n)
		}
		b.envVars++
		b.envBytes += n
	case "shell", "exec":
		// The library runs one handler per session and refuses a second
		// start itself; refusing it here keeps the count of handlers
		// exact.
		if b.started {
			return "request refused", []any{"type", req.Type}
		}
		b.started = true
		b.refs++ // the handler's, given back by release when it returns
		if b.startWait != nil {
			b.startWait.Stop()
		}
	case "pty-req", "window-change", "signal", "break":
		// Bounded by the library: one PTY, window changes handed on one at
		// a time, signals buffered up to 128.
	default:
		return "request refused", clientAttrs("type", req.Type)
	}
	return "", nil
}

// neverStarted closes a session channel that has not started anything
// within the login grace.
func (b *boundedSession) neverStarted() {
	defer b.g.srv.recoverConn("session start", b.g.Conn)
	b.mu.Lock()
	started, ch := b.started, b.ch
	b.mu.Unlock()
	if !started && ch != nil {
		b.g.srv.limited.log(b.g.srv.log, slog.LevelInfo, "session never started", "remote", b.g.remote, "after", b.g.srv.lim.LoginGrace)
		_ = ch.Close()
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

func (c *sessionContext) Value(key any) any {
	if key == boundedKey {
		return c.b
	}
	return c.Context.Value(key)
}

// boundedOf is the bounded session a session's context belongs to, if any.
func boundedOf(ctx context.Context) *boundedSession {
	b, _ := ctx.Value(boundedKey).(*boundedSession)
	return b
}
