package moderation

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// maxFor bounds --for and --lock: longer is "until lifted".
const maxFor = 10 * 365 * 24 * time.Hour

// ParseDuration reads a duration as an admin writes it: a number and a
// unit of m, h, d (days) or w (weeks), or anything time.ParseDuration
// reads; it must be more than nothing and at most ten years.
func ParseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, fmt.Errorf("an empty duration (e.g. 30m, 12h, 7d, 2w)")
	}
	var d time.Duration
	var err error
	units := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if u, ok := units[s[len(s)-1]]; len(s) > 1 && ok {
		var n int64
		n, err = strconv.ParseInt(s[:len(s)-1], 10, 64)
		if err == nil && n > int64(maxFor/u) {
			n = int64(maxFor/u) + 1
		}
		d = time.Duration(n) * u
	} else {
		d, err = time.ParseDuration(s)
	}
	switch {
	case err != nil:
		return 0, fmt.Errorf("%.40q is not a duration (e.g. 30m, 12h, 7d, 2w)", s)
	case d <= 0:
		return 0, fmt.Errorf("%.40q: a duration must be more than nothing", s)
	case d > maxFor:
		return 0, fmt.Errorf("%.40q: at most ten years; leave it out for a ban until lifted", s)
	}
	return d, nil
}

// banTarget reads ban's and unban's argument: an address or range
// (10.0.0.0/8, 2001:db8::/32, 192.0.2.7), a key's fingerprint (SHA256:…),
// or a player (#ID or a name).
func (e *Env) banTarget(ctx context.Context, fs *flags, arg string) (store.BanSpec, int, bool) {
	switch {
	case strings.HasPrefix(arg, "SHA256:"):
		if len(arg) < len("SHA256:")+8 || strings.ContainsAny(arg, " \t") {
			return store.BanSpec{}, fs.mistake("%.60q is not a key fingerprint (SHA256:… as ssh-keygen -lf prints it)", arg), false
		}
		return store.BanSpec{Kind: store.BanKey, Target: arg}, wire.ExitOK, true
	case strings.ContainsAny(arg, "/:") || looksLikeIPv4(arg):
		p, err := parseRange(arg)
		if err != nil {
			return store.BanSpec{}, fs.mistake("%v", err), false
		}
		return store.BanSpec{Kind: store.BanCIDR, Target: p.String()}, wire.ExitOK, true
	}
	p, code, ok := e.player(ctx, fs.c.name, arg)
	if !ok {
		return store.BanSpec{}, code, false
	}
	return store.BanSpec{Kind: store.BanPlayer, Target: strconv.FormatInt(p.ID, 10), PlayerID: p.ID}, wire.ExitOK, true
}

// looksLikeIPv4 reports whether s is digits and dots only, with a dot:
// meant as an address, so a malformed one is an error, not a name.
func looksLikeIPv4(s string) bool {
	return strings.Contains(s, ".") && strings.Trim(s, "0123456789.") == ""
}

// parseRange reads an address or a CIDR range into its canonical prefix:
// the address bits beyond the length are cleared, an IPv4-mapped IPv6
// address is its IPv4 address, and a bare address is a range of one.
func parseRange(s string) (netip.Prefix, error) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return netip.Prefix{}, fmt.Errorf("%.60q is not an address or a range (CIDR: 10.0.0.0/8, 2001:db8::/32)", s)
		}
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil || p.Addr().Zone() != "" {
		return netip.Prefix{}, fmt.Errorf("%.60q is not a range (CIDR: 10.0.0.0/8, 2001:db8::/32)", s)
	}
	if p.Addr().Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	if p.Bits() == 0 {
		return netip.Prefix{}, fmt.Errorf("%.60q is every address; ban something narrower", s)
	}
	return p.Masked(), nil
}

// describe is how a ban's target reads to an admin.
func describe(b store.Ban) string {
	switch b.Kind {
	case store.BanPlayer:
		if b.Name != "" {
			return fmt.Sprintf("player #%d %s", b.PlayerID, store.CleanText(b.Name))
		}
		return "player #" + store.CleanText(b.Target)
	case store.BanKey:
		return "key " + store.CleanText(b.Target)
	}
	return "range " + store.CleanText(b.Target)
}
