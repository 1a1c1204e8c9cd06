package server

import (
	"net"
	"testing"
	"time"
)

func TestHostKey(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"192.0.2.7:22", "192.0.2.7/32"},
		{"[::ffff:192.0.2.7]:22", "192.0.2.7/32"}, // IPv4 over an IPv6 socket
		{"[2001:db8:1:2:3:4:5:6]:22", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:22", "2001:db8:1:2::/64"}, // same /64, same key
	}
	for _, tt := range tests {
		addr, err := net.ResolveTCPAddr("tcp", tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := hostKey(addr).String(); got != tt.want {
			t.Errorf("hostKey(%s) = %s, want %s", tt.addr, got, tt.want)
		}
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
