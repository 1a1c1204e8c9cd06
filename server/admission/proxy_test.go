package admission_test

import (
	"bufio"
	"net"
	"net/netip"
	"testing"

	proxyproto "github.com/pires/go-proxyproto"
	"github.com/ssh2048/ssh2048/server/admission"
)

// TestProxyListener: a trusted balancer's PROXY header, v1 or v2, names
// the client; an untrusted address's connection is served as it comes,
// and a header it sends does not change who it is.
func TestProxyListener(t *testing.T) {
	client := &net.TCPAddr{IP: net.ParseIP("203.0.113.7"), Port: 40001}
	for _, c := range []struct {
		name    string
		trusted string
		version byte // 0: no header
		want    string
	}{
		{"v1 from a trusted balancer", "127.0.0.0/8", 1, "203.0.113.7:40001"},
		{"v2 from a trusted balancer", "127.0.0.1", 2, "203.0.113.7:40001"},
		{"header from an untrusted address", "10.0.0.0/8", 2, "127.0.0.1"},
		{"no header from an untrusted address", "10.0.0.0/8", 0, "127.0.0.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			trusted, err := admission.ParsePrefixes(c.trusted)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			l := admission.ProxyListener(raw, trusted)
			defer l.Close()
			go func() {
				conn, err := net.Dial("tcp", raw.Addr().String())
				if err != nil {
					return
				}
				defer conn.Close()
				if c.version != 0 {
					h := proxyproto.HeaderProxyFromAddrs(c.version, client, raw.Addr())
					if _, err := h.WriteTo(conn); err != nil {
						return
					}
				}
				conn.Write([]byte("SSH-2.0-test\r\n"))
				bufio.NewReader(conn).ReadByte() // wait for the server side to close
			}()
			conn, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			got := conn.RemoteAddr().String()
			if ap, err := netip.ParseAddrPort(got); err == nil && c.want == "127.0.0.1" {
				got = ap.Addr().String()
			}
			if got != c.want {
				t.Errorf("RemoteAddr = %s, want %s", got, c.want)
			}
			line, err := bufio.NewReader(conn).ReadString('\n')
			if c.version != 0 && c.want == "127.0.0.1" {
				if err == nil && line == "SSH-2.0-test\r\n" {
					t.Errorf("an untrusted header vanished: the client could pass for another")
				}
				return
			}
			if err != nil || line != "SSH-2.0-test\r\n" {
				t.Errorf("first line %q (%v), want the client's version line", line, err)
			}
		})
	}
}

func TestParsePrefixes(t *testing.T) {
	got, err := admission.ParsePrefixes(" 10.0.0.0/8, 192.0.2.1 ,::1, ::ffff:127.0.0.1/104")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.0.2.1/32", "::1/128", "127.0.0.0/8"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("prefix %d = %v, want %s", i, got[i], want[i])
		}
	}
	if _, err := admission.ParsePrefixes("10.0.0.0/33"); err == nil {
		t.Error("10.0.0.0/33 accepted")
	}
}
