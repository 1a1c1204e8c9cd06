package admission

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/server/session"
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
	a      *Admission
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
	ending   session.Notice // set when the connection is being ended (idle, keepalive)
	endTimer *time.Timer    // closes it once its sessions have had time to say why

	channels    int                           // open session channels, started or not, under mu (channels.go)
	running     map[*session.Session]struct{} // sessions running a command or a screen, under mu: told why if the connection is ended
	sessionRate *rate.Limiter                 // session channels opened; nil when not limited
	refusals    *rate.Limiter                 // requests and channel opens refused
	lastInput   atomic.Int64                  // unix nanoseconds of the last input on a session
	pending     atomic.Bool                   // a keepalive is waiting for its reply
	missed      atomic.Int32                  // keepalive intervals that passed without a reply
}

type contextKey struct{ name string }

var guardKey = &contextKey{"guard"}

// Admit is the server's ConnCallback: a connection over a cap is refused
// at once, others wait their turn to log in (pace) and are guarded
// (login grace, keepalives, idle timeout) until they close.
func (a *Admission) Admit(ctx ssh.Context, c net.Conn) net.Conn {
	now := time.Now()
	// A banned range is refused first: it holds no place under the caps,
	// and the refusal costs no key exchange.
	if a.banned != nil && a.banned(session.RemoteIP(c.RemoteAddr())) {
		a.onRefused(refusedBanned.label())
		a.refuse(c, refusedBanned, now)
		return nil
	}
	host := hostKey(c.RemoteAddr())
	if r := a.admit(host, now); r != admitted {
		a.onRefused(r.label())
		a.refuse(c, r, now)
		return nil
	}
	a.pace(ctx)
	return a.guard(ctx, c, host)
}

// AcceptKey is the public key callback: it admits every key while the
// address has room for another player (canLogIn): a key is an identity,
// not a permission. Which key it was is read after authentication from
// Session.PublicKey, never remembered here: this callback also sees keys
// the client merely offered (CVE-2024-45337). A key refused for want of
// room sends the client on to keyboard-interactive, which says why.
func (a *Admission) AcceptKey(ctx ssh.Context, _ ssh.PublicKey) bool {
	g := guardOf(ctx)
	return g == nil || a.canLogIn(g.host, false) == admitted
}

// AdmitGuest admits a client without a key through keyboard-interactive
// authentication with no prompts: a guest, who plays but is not recorded.
// Password authentication is not offered at all. When there is no room
// (for guests, or for another player from the address), the challenge's
// instruction tells the client why, which OpenSSH prints, and the login
// fails.
func (a *Admission) AdmitGuest(ctx ssh.Context, challenge gossh.KeyboardInteractiveChallenge) bool {
	if g := guardOf(ctx); g != nil {
		if r := a.canLogIn(g.host, true); r != admitted {
			a.onRefused(r.label())
			_, _ = challenge("", r.line(), nil, nil)
			return false
		}
	}
	_, err := challenge("", "", nil, nil)
	return err == nil
}

// LoggedIn is told of every authentication attempt on the connection of
// ctx, as x/crypto's AuthLogCallback is: the only way to learn that a
// login succeeded (it is called with a nil error then, and not for public
// keys a client merely offers).
func (a *Admission) LoggedIn(ctx ssh.Context, method string, err error) {
	if g := guardOf(ctx); err == nil && g != nil {
		g.login(method != "publickey")
	}
}

// LogLine takes a line of the log budget of the address of ctx's
// connection (see logLine): logged is false when the session is to be
// left out of the log; unlogged is how many sessions of that address
// were left out since its last line.
func (a *Admission) LogLine(ctx ssh.Context, now time.Time) (logged bool, unlogged int) {
	if g := guardOf(ctx); g != nil {
		return a.logLine(g.host, now)
	}
	return true, 0
}

// guard wraps c, counted in by the admission, and starts its login grace.
func (a *Admission) guard(ctx ssh.Context, c net.Conn, host netip.Prefix) *guardedConn {
	g := &guardedConn{Conn: c, a: a, ctx: ctx, host: host, remote: c.RemoteAddr().String(),
		refusals: rate.NewLimiter(refusalRate, refusalBurst)}
	if r := a.lim.SessionRatePerConn; r > 0 {
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
	g.grace = time.AfterFunc(a.lim.LoginGrace, g.graceOver)
	g.mu.Unlock()
	return g
}

func (g *guardedConn) graceOver() {
	defer g.a.recoverConn("login grace", g.Conn)
	g.mu.Lock()
	expired := !g.loggedIn && !g.closed
	g.mu.Unlock()
	if expired {
		g.a.lines.Log(g.a.log, slog.LevelInfo, "login grace expired", "remote", g.remote, "after", g.a.lim.LoginGrace)
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
	if r := g.a.loggedIn(g.host, guest); r != admitted {
		g.a.onRefused(r.label())
		g.a.lines.Log(g.a.log, slog.LevelWarn, "login refused", "reason", r.String(), "remote", g.remote)
		g.Conn.Close()
		return
	}
	g.loggedIn, g.guest = true, guest
	g.grace.Stop()
	g.touch()
	if d := g.a.lim.IdleTimeout; d > 0 {
		g.idle = time.AfterFunc(d, g.checkIdle)
	}
	if d := g.a.lim.KeepaliveInterval; d > 0 {
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
	defer g.a.recoverConn("idle timeout", g.Conn)
	timeout := g.a.lim.IdleTimeout
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
	g.a.lines.Log(g.a.log, slog.LevelInfo, "idle timeout", "remote", g.remote, "after", timeout)
	g.end(session.Idle)
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
	defer g.a.recoverConn("keepalive", g.Conn)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	interval := g.a.lim.KeepaliveInterval
	sc, _ := g.ctx.Value(ssh.ContextKeyConn).(*gossh.ServerConn)
	switch {
	case sc == nil: // logged in a moment ago; the SSH connection is on its way
	case g.pending.Load():
		if int(g.missed.Add(1)) >= g.a.lim.KeepaliveMax {
			g.a.lines.Log(g.a.log, slog.LevelInfo, "keepalive timeout", "remote", g.remote, "unanswered", g.missed.Load(), "interval", interval)
			g.end(session.Keepalive)
			return
		}
	default:
		g.pending.Store(true)
		// Blocks until the reply, or until the connection closes.
		go func() {
			defer g.a.recoverConn("keepalive", g.Conn)
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
const endGrace = session.NoticeGrace + 2*time.Second

// end ends the connection through its sessions: each is told why (its
// screen restores the player's terminal and says so in one line, a
// command writes a line on stderr, and either exits with a status), and
// the connection is closed endGrace later if the client has not closed it
// by then (OpenSSH does once its last session ends). Closing the socket
// at once would leave the player's terminal on the alternate screen with
// the cursor hidden and no word why. g.mu is held.
func (g *guardedConn) end(why session.Notice) {
	if g.ending != 0 {
		return
	}
	g.ending = why
	if len(g.running) == 0 {
		g.Conn.Close()
		return
	}
	for sess := range g.running {
		sess.Notify(why)
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
		g.a.closed(g.host, state)
	}
	g.mu.Unlock()
	return g.Conn.Close()
}

// join registers a session that runs a command or a screen, so that it
// is told why if the connection is ended (see end); a session that joins
// a connection being ended is told at once.
func (g *guardedConn) join(sess *session.Session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running == nil {
		g.running = make(map[*session.Session]struct{})
	}
	g.running[sess] = struct{}{}
	if g.ending != 0 {
		sess.Notify(g.ending)
	}
}

func (g *guardedConn) leave(sess *session.Session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.running, sess)
}

// Join registers sess, which runs a command or a screen, with its
// connection, so that it is told why if the admission ends the
// connection (idle, keepalives) or the session (its client flooded it
// with input); the returned leave is called when it
// is done. Without a guarded connection (a test's server, say) both are
// no-ops.
func Join(sess *session.Session) (leave func()) {
	g := guardOf(sess.Context())
	if g == nil {
		return func() {}
	}
	g.join(sess)
	if b := boundedOf(sess.Context()); b != nil {
		b.attach(sess)
	}
	return func() { g.leave(sess) }
}

// Input is what a session on the connection of ctx calls when it reads
// input from the client (session.New's onInput): input keeps the
// connection from idling (see checkIdle); nil without a guarded
// connection.
func Input(ctx ssh.Context) func() {
	if g := guardOf(ctx); g != nil {
		return g.touch
	}
	return nil
}

// recoverConn is deferred on the goroutines and timers of a connection
// that are not a session's (login grace, keepalives, idle timeout, request
// loops): a panic there closes that connection only.
func (a *Admission) recoverConn(what string, c net.Conn) {
	v := recover()
	if v == nil {
		return
	}
	a.lines.Log(a.log, slog.LevelError, "panic", "panic", fmt.Sprint(v), "in", what,
		"remote", c.RemoteAddr().String(), "stack", string(debug.Stack()))
	_ = c.Close()
}

// guardOf is the guard of the connection a session runs on.
func guardOf(ctx ssh.Context) *guardedConn {
	g, _ := ctx.Value(guardKey).(*guardedConn)
	return g
}
