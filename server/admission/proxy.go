package admission

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	proxyproto "github.com/pires/go-proxyproto"
)

// proxyHeaderTimeout bounds the wait for a PROXY header from a trusted
// balancer; it runs in the connection's own goroutine, before admission.
const proxyHeaderTimeout = 5 * time.Second

// ProxyListener reads the PROXY protocol (v1 and v2) on connections from
// the trusted balancers' addresses, so that the per-address limits and
// the logs see the real client: such a connection must start with a
// header (HAProxy's send-proxy-v2), and its RemoteAddr is the client the
// header names. Connections from anywhere else are served as they come,
// header or not: an address that is not a trusted balancer's cannot make
// itself look like someone else (a header it sends is just bytes that
// break its own SSH handshake). With no trusted prefix, l is returned.
func ProxyListener(l net.Listener, trusted []netip.Prefix) net.Listener {
	if len(trusted) == 0 {
		return l
	}
	return &proxyproto.Listener{
		Listener:          l,
		ReadHeaderTimeout: proxyHeaderTimeout,
		ConnPolicy: func(o proxyproto.ConnPolicyOptions) (proxyproto.Policy, error) {
			ap, err := netip.ParseAddrPort(o.Upstream.String())
			if err != nil {
				return proxyproto.SKIP, nil
			}
			for _, p := range trusted {
				if p.Contains(ap.Addr().Unmap()) {
					return proxyproto.REQUIRE, nil
				}
			}
			return proxyproto.SKIP, nil
		},
	}
}

// ParsePrefixes reads a comma-separated list of CIDR prefixes
// (10.0.0.0/8,::1/128); a bare address is its own /32 or /128.
func ParsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("%q: not an address or CIDR prefix", f)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("%q: not an address or CIDR prefix", f)
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
