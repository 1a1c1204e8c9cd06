package web

import (
	"net"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzShortName: whatever a store returns, a page's name is valid UTF-8
// without control characters, at most maxNameRunes long.
func FuzzShortName(f *testing.F) {
	for _, s := range []string{"ann", "<script>alert(1)", "a\x1b[31mb", "\xff\xfe", "界界界"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := shortName(s)
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > maxNameRunes {
			t.Fatalf("shortName(%q) = %q", s, got)
		}
		for _, r := range got {
			if unicode.IsControl(r) {
				t.Fatalf("shortName(%q) = %q keeps a control character", s, got)
			}
		}
	})
}

// FuzzClientAddr: any peer address and X-Forwarded-For header give an
// address to count by, and a peer that is not a trusted proxy is counted
// by its own address whatever the header says, loopback included.
func FuzzClientAddr(f *testing.F) {
	f.Add("127.0.0.1:1", "198.51.100.7")
	f.Add("192.0.2.1:1", "198.51.100.7, 10.0.0.1")
	f.Add("[::1]:1", "::ffff:1.2.3.4")
	f.Add("10.0.0.1:1", "10.0.0.2, 198.51.100.7")
	f.Add("garbage", "")
	trust := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	f.Fuzz(func(t *testing.T, remote, forwarded string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", forwarded)
		got := clientAddr(r, trust)
		untrusted := clientAddr(r, nil)
		r.Header.Del("X-Forwarded-For")
		direct := clientAddr(r, trust)
		if untrusted != direct {
			t.Fatalf("peer %q forwarding %q counted as %v without a trusted proxy, not as itself (%v)", remote, forwarded, untrusted, direct)
		}
		host, _, err := net.SplitHostPort(remote)
		if err != nil {
			host = remote // as clientAddr reads it
		}
		peer, err := netip.ParseAddr(host)
		if (err != nil || !trust[0].Contains(peer.Unmap())) && got != direct {
			t.Fatalf("peer %q forwarding %q counted as %v, not as itself (%v)", remote, forwarded, got, direct)
		}
	})
}

// FuzzSSHHost: whatever Host a client sends, the footer's command gets ""
// or a word of letters, digits, dots, hyphens and colons that does not
// start with a hyphen (ssh would read it as an option), and is its own
// host again.
func FuzzSSHHost(f *testing.F) {
	for _, s := range []string{"example.org:80", "[2001:db8::1]:443", "-oProxyCommand=x", "a b", "evil<script>", "[fe80::1%25eth0]:80", "Example.ORG."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := sshHost(s)
		if got == "" {
			return
		}
		if got[0] == '-' || strings.Trim(got, "abcdefghijklmnopqrstuvwxyz0123456789.-:") != "" {
			t.Fatalf("sshHost(%q) = %q", s, got)
		}
		if again := sshHost(got); again != got {
			t.Fatalf("sshHost(%q) = %q, but sshHost(%q) = %q", s, got, got, again)
		}
	})
}
