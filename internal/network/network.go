// Package network says which network a client's address belongs to, for
// the bounds a server keeps per network rather than per player: a key is
// free to make, and a guest is a new player each connection, so a bound
// per player alone binds no one. A network is an IPv4 address, or the
// /56 of an IPv6 address: whoever holds one address of a /56 usually
// holds them all, 2^72 of them.
package network

import "net/netip"

// Of returns ip's network; the invalid Prefix for the invalid Addr (no
// address known: counted against no network).
func Of(ip netip.Addr) netip.Prefix {
	ip = ip.Unmap()
	bits := 32
	if ip.Is6() {
		bits = 56
	}
	p, err := ip.Prefix(bits)
	if err != nil {
		return netip.Prefix{}
	}
	return p
}
