package web

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxAddrs bounds the per-address table. Past it, a sweep forgets the
// addresses whose bucket is full again; if none is, new addresses share
// one bucket until some are: the table cannot grow with every address
// that ever asked (IPv6 has plenty to ask from).
const maxAddrs = 100_000

// sweepEvery bounds how often the table is swept.
const sweepEvery = 10 * time.Second

// limiter is a token bucket of requests per address.
type limiter struct {
	rate  rate.Limit
	burst int

	mu        sync.Mutex
	addrs     map[netip.Prefix]*rate.Limiter
	shared    *rate.Limiter // for new addresses while the table is full
	lastSweep time.Time
}

func newLimiter(perSecond float64, burst int) *limiter {
	return &limiter{rate: rate.Limit(perSecond), burst: burst, addrs: make(map[netip.Prefix]*rate.Limiter),
		shared: rate.NewLimiter(rate.Limit(perSecond), burst)}
}

// allow takes a token from addr's bucket.
func (l *limiter) allow(addr netip.Prefix, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.addrs[addr]
	if b == nil {
		if len(l.addrs) >= maxAddrs || now.Sub(l.lastSweep) >= sweepEvery {
			l.sweep(now)
		}
		if len(l.addrs) >= maxAddrs {
			b = l.shared
		} else {
			b = rate.NewLimiter(l.rate, l.burst)
			l.addrs[addr] = b
		}
	}
	return b.AllowN(now, 1)
}

// sweep forgets the addresses whose bucket is full: they have nothing to
// remember. l.mu is held.
func (l *limiter) sweep(now time.Time) {
	l.lastSweep = now
	for a, b := range l.addrs {
		if b.TokensAt(now) >= float64(l.burst) {
			delete(l.addrs, a)
		}
	}
}

// clientAddr is the address a request is counted by: the IPv4 address,
// or the /64 of an IPv6 address (whoever has one address of a /64 usually
// has them all). A request from a trusted proxy is counted by the client
// the proxies saw: X-Forwarded-For read from its end, past the addresses
// of trusted proxies (each appends the peer it saw), to the first that is
// not one. No other peer is believed, loopback included: a forwarder on
// the same host (socat, ssh -L) passes on whatever its client wrote, and
// with it, rotating the header, the client would choose its own key.
func clientAddr(r *http.Request, trustedProxies []netip.Prefix) netip.Prefix {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Prefix{}
	}
	ip = ip.Unmap().WithZone("")
	if trusted(trustedProxies, ip) {
		fwd := r.Header.Values("X-Forwarded-For")
	walk:
		for i := len(fwd) - 1; i >= 0; i-- {
			hops := strings.Split(fwd[i], ",")
			for j := len(hops) - 1; j >= 0; j-- {
				f, err := netip.ParseAddr(strings.TrimSpace(hops[j]))
				if err != nil {
					break walk // past what a trusted proxy wrote: the last one believed stands
				}
				ip = f.Unmap().WithZone("")
				if !trusted(trustedProxies, ip) {
					break walk
				}
			}
		}
	}
	return addrKey(ip)
}

// trusted says whether ip is in one of prefixes.
func trusted(prefixes []netip.Prefix, ip netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// addrKey is what the per-address limits count ip by: the IPv4 address,
// or the /64 of an IPv6 address.
func addrKey(ip netip.Addr) netip.Prefix {
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return p
}
