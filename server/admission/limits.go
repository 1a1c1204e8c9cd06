// Package admission decides who may connect to the SSH server and what a
// connection may make it hold, below the SSH library, which keeps whatever
// a client sends: the caps on connections (in all, per address or IPv6
// /64, per /56, the key holders' reserve), the queue that paces logins,
// the guarded connection (login grace, keepalives, idle timeout) and the
// bounded session channel (sessions per connection, env, refused requests,
// input not read yet).
// Each limit's Limits field says what it bounds; the reason it is needed
// is written where it is applied. ProxyListener lets the limits see the
// real client behind a trusted balancer.
//
// The server (package server) wires an Admission into its SSH server's
// callbacks and channel handlers; the admission knows nothing of games or
// commands, and tells a session it ends only through package session's
// notices.
package admission

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ssh2048/ssh2048/server/session"
	"golang.org/x/time/rate"
)

// Limits bound what clients can make the server hold or do. A limit at 0
// is off, except LoginGrace, which must be positive. Each limit's reason
// is written where it is applied (here, conn.go, channels.go, input.go); the operator's
// view is docs/operating.md ("Limits"). The flags of `ssh2048 serve` are
// bound straight onto these fields (Flags), so names, defaults and help
// live here only.
type Limits struct {
	// IdleTimeout closes a connection after this long without input from
	// the client on any of its sessions.
	IdleTimeout time.Duration
	// LoginGrace closes a connection that has not authenticated in time.
	LoginGrace time.Duration
	// MaxConns caps connections, logged in or not.
	MaxConns int
	// MaxUnauthPerIP caps the connections from one address (IPv4, or IPv6
	// /64) that have not logged in yet.
	MaxUnauthPerIP int
	// ConnRatePerIP and ConnBurstPerIP are a token bucket of new
	// connections per address: ConnRatePerIP a second, bursts of
	// ConnBurstPerIP.
	ConnRatePerIP  float64
	ConnBurstPerIP int
	// KeepaliveInterval is how often a logged-in client is sent a
	// keepalive@openssh.com request; after KeepaliveMax intervals without
	// a reply the connection is closed.
	KeepaliveInterval time.Duration
	KeepaliveMax      int
	// MaxSessionsPerConn caps the sessions open at once on one connection,
	// started or not (channels.go).
	MaxSessionsPerConn int
	// SessionRatePerConn caps how fast one connection opens sessions, a
	// second, after a burst of sessionBurst.
	SessionRatePerConn float64
	// MaxConnsPerIP caps the logged-in connections from one address
	// (IPv4, or IPv6 /64), guests and key holders alike.
	MaxConnsPerIP int
	// MaxConnsPer56 caps the connections from one IPv6 /56, logged in or
	// not: the per-address limits count a /64, and whoever has a /56 (a
	// common size for one customer) has 256 of them.
	MaxConnsPer56 int
	// KeyReserve is the share of MaxConns, in per cent, that guests cannot
	// take: players with a key can still log in when guests fill the rest.
	KeyReserve int
	// KeyRate caps the input of a game screen, in keys a second (one
	// second's worth may come at once); keys over it are dropped.
	KeyRate float64
	// BotRate caps the moves of a bot session (bot, bot --race), a second
	// (one second's worth may come at once); moves over it are answered
	// with an error line and not played.
	BotRate float64
	// LoginRate paces logins, all addresses together: at most this many
	// connections a second begin their key exchange, after a burst of a
	// tenth of a second's worth; the others wait their turn (see pace).
	LoginRate float64
}

// loginRatePerCore is LoginRate's default, for each core the server may
// use. With a crowd of players logging in at once while the first of
// them play, the players' key to frame tail was shorter with logins paced
// at this rate than unpaced (the commit that brought the pacing in has
// the figures).
const loginRatePerCore = 200

// DefaultLimits returns the limits `ssh2048 serve` starts with.
func DefaultLimits() Limits {
	return Limits{
		IdleTimeout:        10 * time.Minute,
		LoginGrace:         20 * time.Second,
		MaxConns:           1000,
		MaxUnauthPerIP:     10,
		ConnRatePerIP:      5, // connections per second, refilled continuously
		ConnBurstPerIP:     20,
		KeepaliveInterval:  30 * time.Second,
		KeepaliveMax:       3,
		MaxSessionsPerConn: 10, // as OpenSSH's MaxSessions
		SessionRatePerConn: 5,  // sessions a second, after a burst of sessionBurst: a script on one connection
		MaxConnsPerIP:      64, // logged in, per address: a school or an office behind one NAT
		MaxConnsPer56:      128,
		KeyReserve:         10, // per cent of MaxConns that guests cannot take
		KeyRate:            50, // keys per second per game screen; also the burst
		BotRate:            50, // moves per second per bot session; also the burst
		LoginRate:          loginRatePerCore * float64(runtime.GOMAXPROCS(0)),
	}
}

// Flags defines a flag for each limit on fs, with the value in l as its
// default; parsing the flags sets l.
func (l *Limits) Flags(fs *flag.FlagSet) {
	fs.DurationVar(&l.IdleTimeout, "idle-timeout", l.IdleTimeout,
		"close a connection after this long without input from the client; 0 never")
	fs.DurationVar(&l.LoginGrace, "login-grace", l.LoginGrace,
		"close a connection that has not logged in after this long")
	fs.IntVar(&l.MaxConns, "max-conns", l.MaxConns,
		"most connections at once, logged in or not; more are refused; 0 no cap")
	fs.IntVar(&l.MaxUnauthPerIP, "max-unauth-per-ip", l.MaxUnauthPerIP,
		"most connections not yet logged in from one address (IPv6: one /64); 0 no cap")
	fs.Float64Var(&l.ConnRatePerIP, "conn-rate-per-ip", l.ConnRatePerIP,
		"new connections a second from one address, after a burst of --conn-burst-per-ip; 0 no limit")
	fs.IntVar(&l.ConnBurstPerIP, "conn-burst-per-ip", l.ConnBurstPerIP,
		"new connections from one address at once, before --conn-rate-per-ip applies")
	fs.DurationVar(&l.KeepaliveInterval, "keepalive-interval", l.KeepaliveInterval,
		"send a keepalive to a logged-in client this often; 0 never")
	fs.IntVar(&l.KeepaliveMax, "keepalive-max", l.KeepaliveMax,
		"close a connection after this many keepalive intervals without a reply")
	fs.Float64Var(&l.KeyRate, "key-rate", l.KeyRate,
		"keys a second a game screen takes (a second's worth at once); more are dropped; 0 no limit")
	fs.Float64Var(&l.BotRate, "bot-rate", l.BotRate,
		"moves a second a bot session makes (a second's worth at once); more get an error line and are not played; 0 no limit")
	fs.IntVar(&l.MaxSessionsPerConn, "max-sessions-per-conn", l.MaxSessionsPerConn,
		"most sessions open at once on one connection, started or not; 0 no cap")
	fs.Float64Var(&l.SessionRatePerConn, "session-rate-per-conn", l.SessionRatePerConn,
		"sessions a second one connection may open, after a burst of 20; 0 no limit")
	fs.IntVar(&l.MaxConnsPerIP, "max-conns-per-ip", l.MaxConnsPerIP,
		"most logged-in connections from one address (IPv6: one /64), guests and keys alike; 0 no cap")
	fs.IntVar(&l.MaxConnsPer56, "max-conns-per-56", l.MaxConnsPer56,
		"most connections from one IPv6 /56, logged in or not, all its /64s together; 0 no cap")
	fs.IntVar(&l.KeyReserve, "key-reserve", l.KeyReserve,
		"per cent of --max-conns that guests cannot take, kept for players with a key; 0 none")
	fs.Float64Var(&l.LoginRate, "login-rate", l.LoginRate,
		fmt.Sprintf("logins a second, all addresses together (%d a core by default); more wait their turn; 0 no limit", loginRatePerCore))
}

// Validate reports the first limit that makes no sense, in the flags'
// terms.
func (l Limits) Validate() error {
	switch {
	case l.LoginGrace <= 0:
		// A connection that never logs in would hold its socket, its
		// goroutines and a place under the caps for ever.
		return errors.New("--login-grace must be positive (it cannot be turned off)")
	case l.IdleTimeout < 0 || l.KeepaliveInterval < 0:
		return errors.New("--idle-timeout and --keepalive-interval must be 0 (off) or more")
	case l.MaxConns < 0 || l.MaxUnauthPerIP < 0 || l.MaxSessionsPerConn < 0 || l.MaxConnsPerIP < 0 || l.MaxConnsPer56 < 0:
		return errors.New("--max-conns, --max-unauth-per-ip, --max-sessions-per-conn, --max-conns-per-ip and --max-conns-per-56 must be 0 (no cap) or more")
	case !rateOK(l.ConnRatePerIP) || !rateOK(l.KeyRate) || !rateOK(l.BotRate) || !rateOK(l.SessionRatePerConn) || !rateOK(l.LoginRate):
		return errors.New("--conn-rate-per-ip, --key-rate, --bot-rate, --session-rate-per-conn and --login-rate must be 0 (no limit) or a finite number more")
	case l.KeyReserve < 0 || l.KeyReserve > 100:
		return errors.New("--key-reserve must be a per cent, 0 to 100")
	case l.ConnBurstPerIP < 1 || l.KeepaliveMax < 1:
		return errors.New("--conn-burst-per-ip and --keepalive-max must be 1 or more")
	}
	return nil
}

// rateOK reports whether r is a rate a limit may have: 0 (no limit) or a
// finite number more. NaN, which compares false with everything, passed
// a check for r < 0 and made every limit of r > 0 no limit at all.
func rateOK(r float64) bool { return r >= 0 && !math.IsInf(r, 1) }

// keyReserve is how many of MaxConns guests cannot take (KeyReserve per
// cent, rounded up); 0 when there is no cap or no reserve.
func (l Limits) keyReserve() int {
	if l.MaxConns <= 0 || l.KeyReserve <= 0 {
		return 0
	}
	return (l.MaxConns*l.KeyReserve + 99) / 100
}

// hostKey is what the per-address limits count by: the IPv4 address, or
// the /64 of an IPv6 address, since anyone with one IPv6 address usually
// has the 2^64 addresses of its /64 to connect from.
func hostKey(addr net.Addr) netip.Prefix {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return netip.Prefix{}
	}
	ip := ap.Addr().Unmap()
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return p
}

// netKey is what MaxConnsPer56 counts by: the /56 of an IPv6 host key,
// and for IPv4 the invalid Prefix (not counted: an IPv4 address is one
// address).
func netKey(host netip.Prefix) netip.Prefix {
	if !host.Addr().Is6() {
		return netip.Prefix{}
	}
	p, _ := host.Addr().Prefix(56)
	return p
}

// ipv6Net is what the admission keeps per IPv6 /56.
type ipv6Net struct {
	conns  int // connections, logged in or not
	unauth int // of which not logged in yet
}

// host is what the admission keeps per address.
type host struct {
	unauth   int           // connections that have not logged in yet
	loggedIn int           // logged-in connections, guests included
	rate     *rate.Limiter // new connections; nil when the rate is not limited
	lines    *rate.Limiter // connect and disconnect lines (see logLine)
	unlogged int           // sessions left out of the log since the last logged one
}

// refusal is why a connection is turned away; its text is written to the
// client before the SSH version exchange, where RFC 4253 (4.2) lets a
// server send lines of text. OpenSSH shows it with -v ("banner line 0");
// without, the user sees "Connection closed by remote host".
type refusal int

const (
	admitted refusal = iota
	refusedFull
	refusedRate
	refusedUnauth
	refusedReserve // in the key holders' reserve, one login at a time per address
	refusedPerIP   // logged-in connections per address (at login)
	refusedGuests  // guests take no more than MaxConns less the reserve (at login)
	refusedPer56   // connections per IPv6 /56
	refusedBanned  // an address range an admin banned (Config.Banned)
	refusalKinds
)

func (r refusal) String() string {
	switch r {
	case refusedFull:
		return "server full"
	case refusedRate:
		return "connection rate per address"
	case refusedUnauth:
		return "unauthenticated connections per address"
	case refusedReserve:
		return "reserve for key holders"
	case refusedPerIP:
		return "logged-in connections per address"
	case refusedGuests:
		return "guests full"
	case refusedPer56:
		return "connections per IPv6 /56"
	case refusedBanned:
		return "banned address range"
	}
	return "admitted"
}

func (r refusal) line() string {
	switch r {
	case refusedFull:
		return "ssh2048: the server is full; try again in a few minutes.\r\n"
	case refusedRate:
		return "ssh2048: too many connections from your address; wait a moment and try again.\r\n"
	case refusedUnauth:
		return "ssh2048: too many connections from your address are logging in at once; try again later.\r\n"
	case refusedReserve:
		return "ssh2048: the server is nearly full; one login at a time from your address. Try again in a moment.\r\n"
	case refusedPerIP:
		return "ssh2048: too many players are connected from your address; close a connection or try again later."
	case refusedGuests:
		return "ssh2048: the server is full for guests; connect with an SSH key to play (ssh-keygen -t ed25519)."
	case refusedPer56:
		return "ssh2048: too many connections from your network; close a connection or try again later.\r\n"
	case refusedBanned:
		return "ssh2048: connections from your network are banned from this server.\r\n"
	}
	return ""
}

// label is the refusal's name in metrics (Config.Refused).
func (r refusal) label() string {
	switch r {
	case refusedFull:
		return "full"
	case refusedRate:
		return "rate"
	case refusedUnauth:
		return "unauthenticated"
	case refusedReserve:
		return "reserve"
	case refusedPerIP:
		return "per_ip"
	case refusedGuests:
		return "guests"
	case refusedPer56:
		return "per_56"
	case refusedBanned:
		return "banned_range"
	}
	return "admitted"
}

// Admission counts connections and decides, the moment one is accepted,
// whether it may go on to the SSH handshake; it then guards each
// connection it let in (conn.go) and bounds its session channels
// (channels.go).
type Admission struct {
	lim         Limits
	log         *slog.Logger
	lines       *session.LineLimiter // lines a client can cause at will
	onRefused   func(reason string)
	opensScreen func(args []string) bool
	banned      func(netip.Addr) bool

	mu        sync.Mutex
	total     int
	guests    int // logged-in guests
	hosts     map[netip.Prefix]*host
	nets      map[netip.Prefix]*ipv6Net // IPv6 /56s with connections (MaxConnsPer56)
	lastSweep time.Time

	logins    *rate.Limiter              // LoginRate; nil without one
	lingering atomic.Int32               // refused connections being closed politely
	refused   [refusalKinds]atomic.Int64 // since the last log line of that kind
	lastLog   [refusalKinds]atomic.Int64 // unix nanoseconds
}

// Config configures an Admission.
type Config struct {
	// Limits bound what clients can make the server hold or do; they
	// must be valid (Limits.Validate).
	Limits Limits
	Logger *slog.Logger // nil: slog.Default()
	// Lines limits the log lines a client can cause at will; nil: one of
	// the admission's own. The server shares its own, so that a client's
	// panics and refusals draw on one budget per kind.
	Lines *session.LineLimiter
	// Refused is told each connection or login turned away over a limit,
	// by the refusal's label (see the server's Observer.Refused); nil:
	// no one.
	Refused func(reason string)
	// OpensScreen reports whether an exec command, split as the session
	// splits it, runs a screen: with a PTY its handler then serves the
	// channel's requests while it waits (see boundedSession.serve).
	OpensScreen func(args []string) bool
	// Banned reports whether an address is in a range an admin banned:
	// its connections are refused the moment they are accepted, before
	// the handshake costs anything. It is asked for every connection, so
	// it must answer from memory (moderation.BanList). nil: none is.
	Banned func(netip.Addr) bool
}

// New returns the admission of a server: its ConnCallback is Admit, its
// authentication callbacks AcceptKey, AdmitGuest and LoggedIn, and its
// channel and request handlers OpenSession, OtherChannel and
// GlobalRequest.
func New(cfg Config) *Admission {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	a := newAdmission(cfg.Limits, cfg.Logger)
	if cfg.Lines != nil {
		a.lines = cfg.Lines
	}
	if cfg.Refused != nil {
		a.onRefused = cfg.Refused
	}
	if cfg.OpensScreen != nil {
		a.opensScreen = cfg.OpensScreen
	}
	a.banned = cfg.Banned
	return a
}

func newAdmission(lim Limits, log *slog.Logger) *Admission {
	a := &Admission{lim: lim, log: log, hosts: make(map[netip.Prefix]*host), nets: make(map[netip.Prefix]*ipv6Net),
		lines: &session.LineLimiter{}, onRefused: func(string) {}, opensScreen: func([]string) bool { return false }}
	if lim.LoginRate > 0 {
		a.logins = rate.NewLimiter(rate.Limit(lim.LoginRate), max(1, int(lim.LoginRate/10)))
	}
	return a
}

// pace waits for an admitted connection's turn to begin its login
// (LoginRate). A key exchange and the login after it cost the server far
// more CPU than a move (docs/performance.md, "Limits", has a login's CPU
// by area); when a crowd of players log in at once (a restart, a class
// told to connect), those take every core, and the players already in
// wait behind them for each move's frame. The wait is before the server's
// first word, so a client cannot hold a turn (turns are times, taken in
// order), and the login grace starts after it. It is bounded: every
// waiting connection counts under MaxConns, so a turn is at most
// MaxConns/LoginRate away.
func (a *Admission) pace(ctx context.Context) {
	if a.logins != nil {
		_ = a.logins.Wait(ctx) // ctx has no deadline; it ends only with the connection's handling
	}
}

// admit counts a new connection from key in, or says why not.
func (a *Admission) admit(key netip.Prefix, now time.Time) refusal {
	a.mu.Lock()
	defer a.mu.Unlock()
	// Total connections: every connection costs a socket, goroutines and
	// buffers, more with a game screen (docs/performance.md, "Idle
	// sessions", says what one holds); without a cap a flood of
	// connections, or simply too many players, exhausts memory or file
	// descriptors and takes every player down with it. Past the cap
	// newcomers are refused and the players already in stay.
	if a.lim.MaxConns > 0 && a.total >= a.lim.MaxConns {
		return refusedFull
	}
	a.sweep(now)
	h := a.hosts[key]
	if h == nil {
		h = &host{lines: rate.NewLimiter(linesRate, linesBurst)}
		if a.lim.ConnRatePerIP > 0 {
			h.rate = rate.NewLimiter(rate.Limit(a.lim.ConnRatePerIP), a.lim.ConnBurstPerIP)
		}
		a.hosts[key] = h
	}
	// Connection rate per address: every handshake costs the server a
	// key exchange and a host-key signature (see BenchmarkHandshake), so
	// one address connecting in a loop could eat the CPU that the
	// players' moves need; it also bounds how fast one address can try
	// keys or fill the logs. A token bucket lets a burst through (a
	// classroom behind one NAT) and then a steady rate.
	if h.rate != nil && !h.rate.AllowN(now, 1) {
		return refusedRate
	}
	// Unauthenticated connections per address: without it one address
	// could hold the whole total cap with connections that stall before
	// login (each held for the login grace), and lock every player out;
	// logged-in connections do not count, so players behind one NAT are
	// not limited by it.
	if a.lim.MaxUnauthPerIP > 0 && h.unauth >= a.lim.MaxUnauthPerIP {
		return refusedUnauth
	}
	// Connections per IPv6 /56: the limits above count a /64, as one
	// address, but a /56 is a common size for one customer, who can then
	// connect from 256 of them, each with the allowance of an address:
	// enough to hold the whole total cap. Logged-in connections count
	// too: the per-address cap on them counts a /64 as well.
	n := a.nets[netKey(key)]
	if n != nil && a.lim.MaxConnsPer56 > 0 && n.conns >= a.lim.MaxConnsPer56 {
		return refusedPer56
	}
	// The reserve: the last keyReserve places under maxConns are for key
	// holders (guests are refused at login past the rest, see canLogIn).
	// Whether a connection has a key is known only at login, so here an
	// address gets one login at a time: a key holder logs in within a
	// moment, while one address opening connections that never log in
	// could otherwise hold the whole reserve, and with it every player
	// with a key out of a server full of guests.
	// A /56 gets one login at a time there too, or its /64s would each
	// hold one.
	if reserve := a.lim.keyReserve(); reserve > 0 && a.total >= a.lim.MaxConns-reserve && (h.unauth > 0 || n != nil && n.unauth > 0) {
		return refusedReserve
	}
	h.unauth++
	a.total++
	if nk := netKey(key); nk.IsValid() {
		if n == nil {
			n = &ipv6Net{}
			a.nets[nk] = n
		}
		n.conns++
		n.unauth++
	}
	return admitted
}

// canLogIn says whether a connection from key may log in, as a guest or
// with a key, or why not. Asked by the authentication callbacks, so that
// the client is told why (loggedIn decides for good).
func (a *Admission) canLogIn(key netip.Prefix, guest bool) refusal {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.loginRefusal(a.hosts[key], guest)
}

// loginRefusal: a.mu is held.
func (a *Admission) loginRefusal(h *host, guest bool) refusal {
	// Logged-in connections per address: players do not count against
	// --max-unauth-per-ip once in, so without this one address (one
	// guest needs no key, and keys cost nothing to make) could log in
	// until the server is full and hold it. The default leaves room for
	// a school or an office behind one NAT.
	if h != nil && a.lim.MaxConnsPerIP > 0 && h.loggedIn >= a.lim.MaxConnsPerIP {
		return refusedPerIP
	}
	// Guests take at most maxConns less the reserve: guests from anywhere
	// cannot lock out the players with a key.
	if reserve := a.lim.keyReserve(); guest && reserve > 0 && a.guests >= a.lim.MaxConns-reserve {
		return refusedGuests
	}
	return admitted
}

// loggedIn moves a connection from key out of the unauthenticated count
// into the logged-in ones, or says why it may not log in; it then stays
// counted as unauthenticated until it is closed.
func (a *Admission) loggedIn(key netip.Prefix, guest bool) refusal {
	a.mu.Lock()
	defer a.mu.Unlock()
	h := a.hosts[key]
	if r := a.loginRefusal(h, guest); r != admitted {
		return r
	}
	if h != nil {
		h.unauth = max(h.unauth-1, 0)
		h.loggedIn++
	}
	if n := a.nets[netKey(key)]; n != nil {
		n.unauth = max(n.unauth-1, 0)
	}
	if guest {
		a.guests++
	}
	return admitted
}

// connState is how far a connection got, for counting it out.
type connState int

const (
	connUnauth connState = iota
	connLoggedIn
	connGuest
)

// closed counts a connection out.
func (a *Admission) closed(key netip.Prefix, state connState) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.total--
	h := a.hosts[key]
	switch {
	case h == nil:
	case state == connUnauth:
		h.unauth = max(h.unauth-1, 0)
	default:
		h.loggedIn = max(h.loggedIn-1, 0)
	}
	if state == connGuest {
		a.guests--
	}
	// Every connection of a /56 is counted in it, and out here: a /56
	// without connections has nothing to remember.
	if nk := netKey(key); nk.IsValid() {
		if n := a.nets[nk]; n != nil {
			n.conns--
			if state == connUnauth {
				n.unauth = max(n.unauth-1, 0)
			}
			if n.conns <= 0 {
				delete(a.nets, nk)
			}
		}
	}
}

// Connect and disconnect lines are kept per address: a burst of
// linesBurst sessions, then linesRate a second. Sessions a client opens
// in a loop are bounded by the session rate per connection, and
// connections by the rate per address, but their product is still a line
// for every session of every connection: without this budget one address
// could keep the log growing as fast as both rates allow, for as long as
// it likes. Left-out sessions are counted on the next line.
const (
	linesBurst = 30
	linesRate  = rate.Limit(2)
)

// logLine takes a line of the log budget of key; on success it returns
// how many sessions of that address were left out since its last line.
func (a *Admission) logLine(key netip.Prefix, now time.Time) (bool, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	h := a.hosts[key]
	if h == nil {
		return true, 0 // not counted by the admission (a test's server, say)
	}
	if !h.lines.AllowN(now, 1) {
		h.unlogged++
		return false, 0
	}
	n := h.unlogged
	h.unlogged = 0
	return true, n
}

// Connections is the number of open connections, logged in or not.
func (a *Admission) Connections() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.total
}

// LoggedInConnections is the number of open connections that have logged in,
// guests' included.
func (a *Admission) LoggedInConnections() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, h := range a.hosts {
		n += h.loggedIn
	}
	return n
}

// sweepEvery bounds how often the per-address table is pruned.
const sweepEvery = 10 * time.Second

// sweep forgets addresses with nothing to remember: no connection logging
// in or logged in, no sessions left out of the log, and full buckets.
// Without it the table would grow with every address that ever connected
// (and IPv6 has plenty to connect from).
func (a *Admission) sweep(now time.Time) {
	if now.Sub(a.lastSweep) < sweepEvery {
		return
	}
	a.lastSweep = now
	for k, h := range a.hosts {
		if h.unauth > 0 || h.loggedIn > 0 || h.unlogged > 0 {
			continue
		}
		if (h.rate == nil || h.rate.TokensAt(now) >= float64(h.rate.Burst())) && h.lines.TokensAt(now) >= linesBurst {
			delete(a.hosts, k)
		}
	}
}

// Refused connections get their one line and a moment for it to arrive
// (closing a socket with unread input sends a reset, which can overtake
// the line); at most maxLingering at once, the rest are closed at once so
// that a flood of refused connections holds nothing.
const (
	maxLingering = 64
	lingerFor    = 250 * time.Millisecond
)

// refuse turns c away with r's line and logs it, at most once a second per
// kind of refusal (a flood would otherwise flood the log too).
func (a *Admission) refuse(c net.Conn, r refusal, now time.Time) {
	n := a.refused[r].Add(1)
	if last := a.lastLog[r].Load(); now.UnixNano()-last >= int64(time.Second) && a.lastLog[r].CompareAndSwap(last, now.UnixNano()) {
		a.refused[r].Add(-n)
		a.log.Warn("connection refused", "reason", r.String(), "remote", c.RemoteAddr().String(), "refused", n)
	}
	defer c.Close()
	if a.lingering.Add(1) > maxLingering {
		a.lingering.Add(-1)
		return
	}
	defer a.lingering.Add(-1)
	_ = c.SetDeadline(now.Add(lingerFor))
	if _, err := io.WriteString(c, r.line()); err != nil {
		return
	}
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 4096))
}
