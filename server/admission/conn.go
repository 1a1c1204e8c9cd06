package server

import (
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/time/rate"
)

// guardedConn is every accepted connection: counted by the admission, closed
// if it has not logged in within the login grace, then kept alive with
// keepalives and closed after the idle timeout without input. All of it
// runs on timers, not goroutines: 2,000 idle players cost 2,000 sockets,
// not 4,000 more goroutines.
type guardedConn struct {
	net.Conn
	srv    *Server
	ctx    ssh.Context
	host   netip.Prefix
	remote string

	mu       sync.Mutex
	loggedIn bool
	guest    bool // logged in without a key
	closed   bool
	grace    *time.Timer
	idle     *time.Timer
	keep     *time.Timer
	ending   notice      // set when the connection is being ended (idle, keepalive)
	endTimer *time.Timer // closes it once its sessions have had time to say why

	channels    int                   // open session channels, started or not, under mu (channels.go)
	running     map[*session]struct{} // sessions running a command or a screen, under mu: told why if the connection is ended
	sessionRate *rate.Limiter         // session channels opened; nil when not limited
	refusals    *rate.Limiter         // requests and channel opens refused
	lastInput   atomic.Int64          // unix nanoseconds of the last input on a session
	pending     atomic.Bool           // a keepalive is waiting for its reply
	missed      atomic.Int32          // keepalive intervals that passed without a reply
}

var guardKey = &contextKey{"guard"}

// guard wraps c, counted in by the admission, and starts its login grace.
func (s *Server) guard(ctx ssh.Context, c net.Conn, host netip.Prefix) *guardedConn {
	g := &guardedConn{Conn: c, srv: s, ctx: ctx, host: host, remote: c.RemoteAddr().String(),
		refusals: rate.NewLimiter(refusalRate, refusalBurst)}
	if r := s.lim.SessionRatePerConn; r > 0 {
		g.sessionRate = rate.NewLimiter(rate.Limit(r), sessionBurst)
	}
	ctx.SetValue(guardKey, g)
	g.mu.Lock()
	// Login grace: a deadline set here would be overwritten by the SSH
	// library before the handshake, so a timer checks for the login.
	// Without it a connection that stalls before or during login (a
	// scanner, a slowloris, a client whose user never answers) holds its
	// socket, two goroutines and a place under the caps for ever: a few
	// thousand such connections and the server is out of file
	// descriptors or memory.
	g.grace = time.AfterFunc(s.lim.LoginGrace, g.graceOver)
	g.mu.Unlock()
	return g
}

func (g *guardedConn) graceOver() {
	defer g.srv.recoverConn("login grace", g.Conn)
	g.mu.Lock()
	expired := !g.loggedIn && !g.closed
	g.mu.Unlock()
	if expired {
		g.srv.limited.log(g.srv.log, slog.LevelInfo, "login grace expired", "remote", g.remote, "after", g.srv.lim.LoginGrace)
		g.Conn.Close()
	}
}

// login is called once authentication has succeeded, as a guest or with
// a key. A login over a cap that the authentication callbacks let through
// (another connection from the address logged in meanwhile) closes the
// connection.
func (g *guardedConn) login(guest bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.loggedIn || g.closed {
		return
	}
	if r := g.srv.admission.loggedIn(g.host, guest); r != admitted {
		g.srv.cfg.Observer.Refused(r.label())
		g.srv.limited.log(g.srv.log, slog.LevelWarn, "login refused", "reason", r.String(), "remote", g.remote)
		g.Conn.Close()
		return
	}
	g.loggedIn, g.guest = true, guest
	g.grace.Stop()
	g.touch()
	if d := g.srv.lim.IdleTimeout; d > 0 {
		g.idle = time.AfterFunc(d, g.checkIdle)
	}
	if d := g.srv.lim.KeepaliveInterval; d > 0 {
		g.keep = time.AfterFunc(d, g.keepalive)
	}
}

// touch records input from the client on one of its sessions.
func (g *guardedConn) touch() { g.lastInput.Store(time.Now().UnixNano()) }

// checkIdle closes the connection after the idle timeout without input,
// or re-arms for the rest of it. Input, not traffic: the client's window
// adjustments (sent for every frame it reads) and keepalive replies would
// keep a connection whose screen updates by itself (autoplay, a clock)
// alive for ever. Without the idle timeout, players who walk away keep
// their connection, their game screen and their place under the cap.
func (g *guardedConn) checkIdle() {
	defer g.srv.recoverConn("idle timeout", g.Conn)
	timeout := g.srv.lim.IdleTimeout
	idle := time.Since(time.Unix(0, g.lastInput.Load()))
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	if idle < timeout {
		g.idle.Reset(timeout - idle)
		return
	}
	g.srv.limited.log(g.srv.log, slog.LevelInfo, "idle timeout", "remote", g.remote, "after", timeout)
	g.end(noticeIdle)
}

// keepalive sends keepalive@openssh.com every interval and closes the
// connection when keepaliveMax intervals passed with a request
// unanswered. Without it a client that vanished (network gone, laptop
// shut, NAT entry expired) is only noticed when TCP gives up on a write,
// which for a player who sends nothing and gets no frames is never: its
// connection, screen and game stay open, and with the game its one-writer
// lock. OpenSSH and x/crypto clients answer (with a failure, which is
// fine: any answer shows the client is there).
func (g *guardedConn) keepalive() {
	defer g.srv.recoverConn("keepalive", g.Conn)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	interval := g.srv.lim.KeepaliveInterval
	sc, _ := g.ctx.Value(ssh.ContextKeyConn).(*gossh.ServerConn)
	switch {
	case sc == nil: // logged in a moment ago; the SSH connection is on its way
	case g.pending.Load():
		if int(g.missed.Add(1)) >= g.srv.lim.KeepaliveMax {
			g.srv.limited.log(g.srv.log, slog.LevelInfo, "keepalive timeout", "remote", g.remote, "unanswered", g.missed.Load(), "interval", interval)
			g.end(noticeKeepalive)
			return
		}
	default:
		g.pending.Store(true)
		// Blocks until the reply, or until the connection closes.
		go func() {
			defer g.srv.recoverConn("keepalive", g.Conn)
			if _, _, err := sc.SendRequest("keepalive@openssh.com", true, nil); err == nil {
				g.missed.Store(0)
				g.pending.Store(false)
			}
		}()
	}
	g.keep.Reset(interval)
}

// endGrace is how long the sessions of a connection that is being ended
// have to tell their players why, before the connection closes under
// them: a game screen's notice and goodbye, and then some for a client
// that is slow to read them.
const endGrace = NoticeGrace + 2*time.Second

// end ends the connection through its sessions: each is told why (its
// screen restores the player's terminal and says so in one line, a
// command writes a line on stderr, and either exits with a status), and
// the connection is closed endGrace later if the client has not closed it
// by then (OpenSSH does once its last session ends). Closing the socket
// at once would leave the player's terminal on the alternate screen with
// the cursor hidden and no word why. g.mu is held.
func (g *guardedConn) end(why notice) {
	if g.ending != 0 {
		return
	}
	g.ending = why
	if len(g.running) == 0 {
		g.Conn.Close()
		return
	}
	for sess := range g.running {
		sess.notify(why)
	}
	g.endTimer = time.AfterFunc(endGrace, func() { g.Conn.Close() })
}

// Close closes the connection, stops its timers and counts it out.
func (g *guardedConn) Close() error {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		g.grace.Stop()
		if g.idle != nil {
			g.idle.Stop()
		}
		if g.keep != nil {
			g.keep.Stop()
		}
		if g.endTimer != nil {
			g.endTimer.Stop()
		}
		state := connUnauth
		switch {
		case g.guest:
			state = connGuest
		case g.loggedIn:
			state = connLoggedIn
		}
		g.srv.admission.closed(g.host, state)
	}
	g.mu.Unlock()
	return g.Conn.Close()
}

// join registers a session that runs a command or a screen, so that it
// is told why if the connection is ended (see end); a session that joins
// a connection being ended is told at once.
func (g *guardedConn) join(sess *session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running == nil {
		g.running = make(map[*session]struct{})
	}
	g.running[sess] = struct{}{}
	if g.ending != 0 {
		sess.notify(g.ending)
	}
}

func (g *guardedConn) leave(sess *session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.running, sess)
}

// guardOf is the guard of the connection a session runs on.
func guardOf(ctx ssh.Context) *guardedConn {
	g, _ := ctx.Value(guardKey).(*guardedConn)
	return g
}
