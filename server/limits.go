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
	unauth int // connections that have not logged in yet
	rate   bucket
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
	h.unauth++
	a.total++
	return admitted
}

// loggedIn moves a connection from key out of the unauthenticated count.
func (a *admission) loggedIn(key netip.Prefix) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if h := a.hosts[key]; h != nil && h.unauth > 0 {
		h.unauth--
	}
}

// closed counts a connection out; unauth says it never logged in.
func (a *admission) closed(key netip.Prefix, unauth bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.total--
	if h := a.hosts[key]; unauth && h != nil && h.unauth > 0 {
		h.unauth--
	}
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
// in and a full bucket. Without it the table would grow with every
// address that ever connected (and IPv6 has plenty to connect from).
func (a *admission) sweep(now time.Time) {
	if now.Sub(a.lastSweep) < sweepEvery {
		return
	}
	a.lastSweep = now
	for k, h := range a.hosts {
		if h.unauth > 0 {
			continue
		}
		h.rate.refill(now, a.lim.connRatePerIP, a.lim.connBurstPerIP)
		if a.lim.connRatePerIP == 0 || h.rate.tokens >= a.lim.connBurstPerIP {
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
