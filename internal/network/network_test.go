package network

import (
	"net/netip"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct {
		ip   string
		want string // "" for the invalid Prefix
	}{
		{"192.0.2.7", "192.0.2.7/32"},
		{"::ffff:192.0.2.7", "192.0.2.7/32"}, // IPv4 in IPv6: the IPv4 address's network
		{"2001:db8:aa:bb01::1", "2001:db8:aa:bb00::/56"},
		{"2001:db8:aa:bbff:ffff::2", "2001:db8:aa:bb00::/56"},
		{"", ""},
	}
	for _, tt := range tests {
		var ip netip.Addr
		if tt.ip != "" {
			ip = netip.MustParseAddr(tt.ip)
		}
		got := Of(ip)
		if (tt.want == "" && got.IsValid()) || (tt.want != "" && got.String() != tt.want) {
			t.Errorf("Of(%q) = %v, want %q", tt.ip, got, tt.want)
		}
	}
}
