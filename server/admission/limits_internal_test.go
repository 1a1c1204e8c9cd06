package admission

import (
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"
)

// TestHostKey: the per-address limits count an IPv4 address, or an IPv6
// /64; the per-network one an IPv6 /56 (none for IPv4).
func TestHostKey(t *testing.T) {
	tests := []struct{ addr, host, net string }{
		{"192.0.2.7:22", "192.0.2.7/32", "invalid Prefix"},
		{"[::ffff:192.0.2.7]:22", "192.0.2.7/32", "invalid Prefix"}, // IPv4 over an IPv6 socket
		{"[2001:db8:1:2:3:4:5:6]:22", "2001:db8:1:2::/64", "2001:db8:1::/56"},
		{"[2001:db8:1:2:ffff::1]:22", "2001:db8:1:2::/64", "2001:db8:1::/56"}, // same /64, same key
		{"[2001:db8:1:ff:1::1]:22", "2001:db8:1:ff::/64", "2001:db8:1::/56"},  // another /64 of the same /56
		{"[2001:db8:1:100::1]:22", "2001:db8:1:100::/64", "2001:db8:1:100::/56"},
	}
	for _, tt := range tests {
		addr, err := net.ResolveTCPAddr("tcp", tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		host := hostKey(addr)
		if got := host.String(); got != tt.host {
			t.Errorf("hostKey(%s) = %s, want %s", tt.addr, got, tt.host)
		}
		if got := netKey(host).String(); got != tt.net {
			t.Errorf("netKey(%s) = %s, want %s", host, got, tt.net)
		}
	}
}

// TestAdmissionPer56: the /64s of one IPv6 /56 share MaxConnsPer56,
// logged in or not, so that one customer's 256 /64s are not 256
// addresses' worth of connections; other /56s and IPv4 are not affected,
// and a place comes back when a connection closes.
func TestAdmissionPer56(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxConnsPer56 = 4
	a := newAdmission(lim, nil)
	now := time.Unix(1000, 0)
	key := func(addr string) netip.Prefix {
		return hostKey(net.TCPAddrFromAddrPort(netip.MustParseAddrPort(addr)))
	}
	for i := range 4 {
		k := key(fmt.Sprintf("[2001:db8:1:%x::1]:22", i))
		if r := a.admit(k, now); r != admitted {
			t.Fatalf("connection %d from the /56: %v", i, r)
		}
		if i == 0 {
			a.loggedIn(k, false) // logged in counts too
		}
	}
	if r := a.admit(key("[2001:db8:1:ff::1]:22"), now); r != refusedPer56 {
		t.Fatalf("fifth connection from the /56: %v, want %v", r, refusedPer56)
	}
	if r := a.admit(key("[2001:db8:1:100::1]:22"), now); r != admitted {
		t.Fatalf("another /56: %v", r)
	}
	if r := a.admit(key("192.0.2.7:22"), now); r != admitted {
		t.Fatalf("IPv4: %v", r)
	}
	a.closed(key("[2001:db8:1:0::1]:22"), connLoggedIn)
	if r := a.admit(key("[2001:db8:1:ff::1]:22"), now); r != admitted {
		t.Fatalf("after a connection closed: %v", r)
	}

	// In the key holders' reserve a /56 gets one login at a time, as an
	// address does, or each of its /64s would hold one of the places.
	lim = DefaultLimits()
	lim.MaxConns, lim.KeyReserve = 10, 30 // 3 reserved
	a = newAdmission(lim, nil)
	for i := range 7 {
		a.admit(key(fmt.Sprintf("192.0.2.%d:22", i+1)), now)
	}
	if r := a.admit(key("[2001:db8:1:0::1]:22"), now); r != admitted {
		t.Fatalf("first login in the reserve: %v", r)
	}
	if r := a.admit(key("[2001:db8:1:1::1]:22"), now); r != refusedReserve {
		t.Fatalf("second login of the /56 in the reserve: %v, want %v", r, refusedReserve)
	}
	if r := a.admit(key("[2001:db8:2::1]:22"), now); r != admitted {
		t.Fatalf("another /56 in the reserve: %v", r)
	}
}

// TestAdmissionSweep: addresses with nothing left to remember are
// forgotten, so the table does not grow with every address ever seen.
func TestAdmissionSweep(t *testing.T) {
	a := newAdmission(DefaultLimits(), nil)
	now := time.Unix(1000, 0)
	for i := range 100 {
		addr := &net.TCPAddr{IP: net.IPv4(10, 0, byte(i/250), byte(i%250)), Port: 1}
		if r := a.admit(hostKey(addr), now); r != admitted {
			t.Fatalf("address %d: %v", i, r)
		}
		a.closed(hostKey(addr), connUnauth)
	}
	held := hostKey(&net.TCPAddr{IP: net.IPv4(10, 1, 0, 1)})
	a.admit(held, now) // still logging in: remembered
	a.admit(hostKey(&net.TCPAddr{IP: net.IPv4(10, 2, 0, 1)}), now.Add(time.Minute))
	if len(a.hosts) != 2 || a.hosts[held] == nil {
		t.Fatalf("%d addresses remembered after the sweep, want the 2 with connections", len(a.hosts))
	}
}
