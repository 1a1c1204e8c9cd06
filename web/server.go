package web

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Timeouts bound every connection of the HTTP server. Without them a
// client that sends its request a byte at a time (slowloris), or never
// reads the answer, or just keeps its connection open, holds a socket and
// a goroutine for as long as it likes; a few thousand such clients and
// the server is out of file descriptors.
type Timeouts struct {
	ReadHeader time.Duration // the request line and headers
	Read       time.Duration // the whole request (GET has no body to speak of)
	Write      time.Duration // from the end of the request's headers to the end of the answer
	Idle       time.Duration // a kept-alive connection between requests
}

// DefaultTimeouts are the HTTP server's: generous for a person on a slow
// link, short for a client that stalls on purpose. Write allows for the
// largest answer, the boards of a long game's replay. Idle is short: a
// kept-alive connection holds one of the capped slots (ConnLimits) while
// it waits, and a browser that comes back later than Idle pays one
// handshake.
func DefaultTimeouts() Timeouts {
	return Timeouts{ReadHeader: 5 * time.Second, Read: 10 * time.Second, Write: 30 * time.Second, Idle: 10 * time.Second}
}

// ConnLimits cap the HTTP server's open connections, idle keep-alive ones
// included; 0 is no cap. A connection over a cap is closed as soon as it
// is accepted: one that waited in the kernel's queue instead would wait
// behind whoever holds the slots, and so would everyone after it.
type ConnLimits struct {
	// MaxConns caps the connections of all addresses together: with the
	// timeouts it bounds the sockets and goroutines clients can hold.
	MaxConns int
	// MaxConnsPerIP caps the connections of one address (IPv4, or IPv6
	// /64), so that one address cannot hold MaxConns; a trusted proxy's
	// connections carry many clients and are not capped by it.
	MaxConnsPerIP int
}

// DefaultConnLimits are the HTTP server's caps: a browser opens up to 6
// connections to a site, so one address's 64 leave room for an office or
// a school behind one NAT.
func DefaultConnLimits() ConnLimits {
	return ConnLimits{MaxConns: 1024, MaxConnsPerIP: 64}
}

// NewServer returns an HTTP server for h with the timeouts t, its headers
// capped at 16 KB, logging through log. Serve it on a listener from
// NewListener.
func NewServer(h http.Handler, t Timeouts, log *slog.Logger) *http.Server {
	if log == nil {
		log = slog.Default()
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    16 << 10,
		// The server's own errors (a TLS client on a plain port, a
		// malformed request) are the client's doing: Debug, not Error.
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}

// ListenerConfig configures NewListener.
type ListenerConfig struct {
	Limits ConnLimits
	// TrustedProxies are the peers not capped per address (Config's).
	TrustedProxies []netip.Prefix
	Observer       Observer     // nil: no one
	Logger         *slog.Logger // nil: slog.Default()
}

// refusedLogEvery is how often a refusal is logged: once per interval
// for each address over its cap, and once for the server being full,
// with the count since the last line, so that a flood of connections is
// not a flood of log lines too.
const refusedLogEvery = 10 * time.Second

// NewListener returns l with cfg's caps: Accept closes a connection over
// one at once, counts and logs it, and goes on to the next.
func NewListener(l net.Listener, cfg ListenerConfig) net.Listener {
	if cfg.Observer == nil {
		cfg.Observer = nopObserver{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &capListener{Listener: l, cfg: cfg, peers: make(map[netip.Prefix]*peer)}
}

type capListener struct {
	net.Listener
	cfg ListenerConfig

	mu       sync.Mutex
	open     int
	peers    map[netip.Prefix]*peer // addresses with connections open
	full     int                    // refused as full since the last such line
	lastFull time.Time
}

// peer is what the listener keeps of one address while it has
// connections open; an address without any has nothing to remember.
type peer struct {
	open    int
	refused int // since the last line logged
	lastLog time.Time
}

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := l.key(c.RemoteAddr())
		reason, logged := l.admit(key, time.Now())
		if reason == "" {
			return &countedConn{Conn: c, release: func() { l.closed(key) }}, nil
		}
		c.Close()
		l.cfg.Observer.ConnRefused(reason)
		if logged > 0 {
			l.cfg.Logger.Warn("http connection refused", "reason", reason, "remote", c.RemoteAddr().String(), "refused", logged)
		}
	}
}

// key is what a connection from addr is counted by per address: the
// invalid Prefix for a trusted proxy (not capped per address).
func (l *capListener) key(addr net.Addr) netip.Prefix {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return netip.Prefix{}
	}
	ip := ap.Addr().Unmap().WithZone("")
	if trusted(l.cfg.TrustedProxies, ip) {
		return netip.Prefix{}
	}
	return addrKey(ip)
}

// admit counts a connection from key in, or says why not ("full" or
// "per_ip"), and then how many refusals to log now (0: none yet).
func (l *capListener) admit(key netip.Prefix, now time.Time) (reason string, logged int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.cfg.Limits
	if lim.MaxConns > 0 && l.open >= lim.MaxConns {
		l.full++
		if now.Sub(l.lastFull) >= refusedLogEvery {
			logged, l.full, l.lastFull = l.full, 0, now
		}
		return "full", logged
	}
	p := l.peers[key]
	if key.IsValid() && lim.MaxConnsPerIP > 0 && p != nil && p.open >= lim.MaxConnsPerIP {
		p.refused++
		if now.Sub(p.lastLog) >= refusedLogEvery {
			logged, p.refused, p.lastLog = p.refused, 0, now
		}
		return "per_ip", logged
	}
	l.open++
	if key.IsValid() {
		if p == nil {
			p = &peer{}
			l.peers[key] = p
		}
		p.open++
	}
	return "", 0
}

// closed counts a connection from key out.
func (l *capListener) closed(key netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if p := l.peers[key]; p != nil {
		if p.open--; p.open <= 0 {
			delete(l.peers, key)
		}
	}
}

// countedConn is counted out when closed, once.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
