package server

import (
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the limits in Config. Each says, where it is applied, what
// would go wrong without it.
const (
	DefaultLoginGrace        = 20 * time.Second
	DefaultMaxConns          = 1000
	DefaultMaxUnauthPerIP    = 10
	DefaultConnRatePerIP     = 5.0 // connections per second, refilled continuously
	DefaultConnBurstPerIP    = 20
	DefaultKeepaliveInterval = 30 * time.Second
	DefaultKeepaliveMax      = 3
	DefaultKeyRate           = 50.0 // keys per second per PTY session; also the burst
	DefaultMaxSessions       = 10   // per connection, as OpenSSH's MaxSessions
	DefaultMaxConnsPerIP     = 64   // logged in, per address: a school or an office behind one NAT
	DefaultKeyReserve        = 10   // per cent of MaxConns that guests cannot take
	DefaultSessionRate       = 2.0  // sessions a second per connection, after a burst of sessionBurst
)

// limits is Config's limits with the defaults filled in; a negative
// number in Config (0 for nothing: 0 means the default) turns a limit off.
type limits struct {
	loginGrace        time.Duration
	maxConns          int     // 0: no cap
	maxUnauthPerIP    int     // 0: no cap
	connRatePerIP     float64 // 0: no rate limit
	connBurstPerIP    float64
	keepaliveInterval time.Duration // 0: no keepalives
	keepaliveMax      int
	keyRate           float64 // 0: no key limit
	maxSessions       int     // per connection; 0: no cap
	idleTimeout       time.Duration
	maxConnsPerIP     int     // logged in; 0: no cap
	keyReserve        int     // connections of maxConns that guests cannot take; 0: none
	sessionRate       float64 // sessions a second per connection; 0: no limit
}

func limitsOf(cfg Config) limits {
	l := limits{
		loginGrace:        cfg.LoginGrace,
		maxConns:          orDefault(cfg.MaxConns, DefaultMaxConns),
		maxUnauthPerIP:    orDefault(cfg.MaxUnauthPerIP, DefaultMaxUnauthPerIP),
		connRatePerIP:     orDefault(cfg.ConnRatePerIP, DefaultConnRatePerIP),
		connBurstPerIP:    float64(orDefault(cfg.ConnBurstPerIP, DefaultConnBurstPerIP)),
		keepaliveInterval: orDefault(cfg.KeepaliveInterval, DefaultKeepaliveInterval),
		keepaliveMax:      orDefault(cfg.KeepaliveMax, DefaultKeepaliveMax),
		keyRate:           orDefault(cfg.KeyRate, DefaultKeyRate),
		maxSessions:       orDefault(cfg.MaxSessionsPerConn, DefaultMaxSessions),
		idleTimeout:       max(cfg.IdleTimeout, 0),
		maxConnsPerIP:     orDefault(cfg.MaxConnsPerIP, DefaultMaxConnsPerIP),
		sessionRate:       orDefault(cfg.SessionRatePerConn, DefaultSessionRate),
	}
	if pct := min(orDefault(cfg.KeyReserve, DefaultKeyReserve), 100); l.maxConns > 0 && pct > 0 {
		l.keyReserve = (l.maxConns*pct + 99) / 100
	}
	// The login grace cannot be turned off: a connection that never logs
	// in would hold its socket, its goroutines and a place under the caps
	// for ever.
	if l.loginGrace <= 0 {
		l.loginGrace = DefaultLoginGrace
	}
	if l.connBurstPerIP < 1 {
		l.connBurstPerIP = 1
	}
	if l.keepaliveMax < 1 {
		l.keepaliveMax = 1
	}
	return l
}

// orDefault reads a Config setting: 0 the default, negative off (0).
func orDefault[T time.Duration | int | float64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// bucket is a token bucket: rate tokens a second up to burst, one per
// event. The zero bucket is full.
type bucket struct {
	tokens float64
	last   time.Time
}

func (b *bucket) refill(now time.Time, rate, burst float64) {
	if b.last.IsZero() {
		b.tokens = burst
	} else if d := now.Sub(b.last); d > 0 {
		b.tokens = min(burst, b.tokens+d.Seconds()*rate)
	}
	b.last = now
}

// take spends a token if there is one.
func (b *bucket) take(now time.Time, rate, burst float64) bool {
	b.refill(now, rate, burst)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
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

// host is what the admission keeps per address.
type host struct {
	unauth   int // connections that have not logged in yet
	loggedIn int // logged-in connections, guests included
	rate     bucket
	lines    bucket // connect and disconnect lines (see logLine)
	unlogged int    // sessions left out of the log since the last logged one
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
	}
	return ""
}

// admission counts connections and decides, the moment one is accepted,
// whether it may go on to the SSH handshake.
type admission struct {
	lim limits
	log *slog.Logger

	mu        sync.Mutex
	total     int
	guests    int // logged-in guests
	hosts     map[netip.Prefix]*host
	lastSweep time.Time

	lingering atomic.Int32               // refused connections being closed politely
	refused   [refusalKinds]atomic.Int64 // since the last log line of that kind
	lastLog   [refusalKinds]atomic.Int64 // unix nanoseconds
}

func newAdmission(lim limits, log *slog.Logger) *admission {
	return &admission{lim: lim, log: log, hosts: make(map[netip.Prefix]*host)}
}

// admit counts a new connection from key in, or says why not.
func (a *admission) admit(key netip.Prefix, now time.Time) refusal {
	a.mu.Lock()
	defer a.mu.Unlock()
	// Total connections: every connection costs a socket, goroutines and
	// buffers (tens of kB, more with a game screen); without a cap a
	// flood of connections, or simply too many players, exhausts memory
	// or file descriptors and takes every player down with it. Past the
	// cap newcomers are refused and the players already in stay.
	if a.lim.maxConns > 0 && a.total >= a.lim.maxConns {
		return refusedFull
	}
	a.sweep(now)
	h := a.hosts[key]
	if h == nil {
		h = &host{}
		a.hosts[key] = h
	}
	// Connection rate per address: every handshake costs the server a
	// key exchange and a host-key signature (see BenchmarkHandshake), so
	// one address connecting in a loop could eat the CPU that the
	// players' moves need; it also bounds how fast one address can try
	// keys or fill the logs. A token bucket lets a burst through (a
	// classroom behind one NAT) and then a steady rate.
	if a.lim.connRatePerIP > 0 && !h.rate.take(now, a.lim.connRatePerIP, a.lim.connBurstPerIP) {
		return refusedRate
	}
	// Unauthenticated connections per address: without it one address
	// could hold the whole total cap with connections that stall before
	// login (each held for the login grace), and lock every player out;
	// logged-in connections do not count, so players behind one NAT are
	// not limited by it.
	if a.lim.maxUnauthPerIP > 0 && h.unauth >= a.lim.maxUnauthPerIP {
		return refusedUnauth
	}
	// The reserve: the last keyReserve places under maxConns are for key
	// holders (guests are refused at login past the rest, see canLogIn).
	// Whether a connection has a key is known only at login, so here an
	// address gets one login at a time: a key holder logs in within a
	// moment, while one address opening connections that never log in
	// could otherwise hold the whole reserve, and with it every player
	// with a key out of a server full of guests.
	if a.lim.keyReserve > 0 && a.total >= a.lim.maxConns-a.lim.keyReserve && h.unauth > 0 {
		return refusedReserve
	}
	h.unauth++
	a.total++
	return admitted
}

// canLogIn says whether a connection from key may log in, as a guest or
// with a key, or why not. Asked by the authentication callbacks, so that
// the client is told why (loggedIn decides for good).
func (a *admission) canLogIn(key netip.Prefix, guest bool) refusal {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.loginRefusal(a.hosts[key], guest)
}

// loginRefusal: a.mu is held.
func (a *admission) loginRefusal(h *host, guest bool) refusal {
	// Logged-in connections per address: players do not count against
	// --max-unauth-per-ip once in, so without this one address (one
	// guest needs no key, and keys cost nothing to make) could log in
	// until the server is full and hold it. The default leaves room for
	// a school or an office behind one NAT.
	if h != nil && a.lim.maxConnsPerIP > 0 && h.loggedIn >= a.lim.maxConnsPerIP {
		return refusedPerIP
	}
	// Guests take at most maxConns less the reserve: guests from anywhere
	// cannot lock out the players with a key.
	if guest && a.lim.keyReserve > 0 && a.guests >= a.lim.maxConns-a.lim.keyReserve {
		return refusedGuests
	}
	return admitted
}

// loggedIn moves a connection from key out of the unauthenticated count
// into the logged-in ones, or says why it may not log in; it then stays
// counted as unauthenticated until it is closed.
func (a *admission) loggedIn(key netip.Prefix, guest bool) refusal {
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
func (a *admission) closed(key netip.Prefix, state connState) {
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
}

// Connect and disconnect lines are kept per address: a burst of
// linesBurst sessions, then linesRate a second. Sessions a client opens
// in a loop are bounded by the session rate per connection, and
// connections by the rate per address, but their product is still a line
// for every session of every connection: without this budget one address
// writes megabytes a minute to the log. Left-out sessions are counted on
// the next line.
const (
	linesBurst = 30
	linesRate  = 2.0
)

// logLine takes a line of the log budget of key; on success it returns
// how many sessions of that address were left out since its last line.
func (a *admission) logLine(key netip.Prefix, now time.Time) (bool, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	h := a.hosts[key]
	if h == nil {
		return true, 0 // not counted by the admission (a test's server, say)
	}
	if !h.lines.take(now, linesRate, linesBurst) {
		h.unlogged++
		return false, 0
	}
	n := h.unlogged
	h.unlogged = 0
	return true, n
}

// connections is the number of connections counted in.
func (a *admission) connections() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.total
}

// sweepEvery bounds how often the per-address table is pruned.
const sweepEvery = 10 * time.Second

// sweep forgets addresses with nothing to remember: no connection logging
// in or logged in, no sessions left out of the log, and full buckets. Without it the table would grow with every
// address that ever connected (and IPv6 has plenty to connect from).
func (a *admission) sweep(now time.Time) {
	if now.Sub(a.lastSweep) < sweepEvery {
		return
	}
	a.lastSweep = now
	for k, h := range a.hosts {
		if h.unauth > 0 || h.loggedIn > 0 || h.unlogged > 0 {
			continue
		}
		h.rate.refill(now, a.lim.connRatePerIP, a.lim.connBurstPerIP)
		h.lines.refill(now, linesRate, linesBurst)
		if (a.lim.connRatePerIP == 0 || h.rate.tokens >= a.lim.connBurstPerIP) && h.lines.tokens >= linesBurst {
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
func (a *admission) refuse(c net.Conn, r refusal, now time.Time) {
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
