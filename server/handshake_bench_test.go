package server_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"

	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/store"
	gossh "golang.org/x/crypto/ssh"
)

// BenchmarkHandshake measures logins a second, TCP connect to
// authenticated, with an ed25519 host key and client key: our server (its
// whole stack, the limits counting every connection but set high enough
// not to refuse the benchmark's) against a bare golang.org/x/crypto/ssh
// server, in the same run. Clients and servers share the machine.
//
//	go test -run '^$' -bench Handshake -benchtime 3s ./server/
func BenchmarkHandshake(b *testing.B) {
	b.Run("ssh2048", func(b *testing.B) {
		ts := startServer(b, func(c *server.Config) {
			c.Limits.MaxUnauthPerIP, c.Limits.ConnRatePerIP, c.Limits.MaxConns, c.Limits.MaxConnsPerIP = 1<<20, 1e9, 1<<20, 0
		})
		benchHandshakes(b, ts.addr)
	})
	// The same with a ban list of many ranges and keys, none of them the
	// benchmark's: every connection is checked against the ranges before
	// the handshake and every session's key at login; the login path's
	// cost is to stay what it is without.
	b.Run("ssh2048-bans", func(b *testing.B) {
		ts := startServer(b, func(c *server.Config) {
			c.Limits.MaxUnauthPerIP, c.Limits.ConnRatePerIP, c.Limits.MaxConns, c.Limits.MaxConnsPerIP = 1<<20, 1e9, 1<<20, 0
			servertest.Moderated(b)(c)
		})
		for i := range benchBans {
			spec := store.BanSpec{Kind: store.BanKey, Target: fmt.Sprintf("SHA256:banned-%d", i)}
			if i%10 == 0 {
				spec = store.BanSpec{Kind: store.BanCIDR, Target: fmt.Sprintf("10.%d.%d.0/24", i/256%256, i%256)}
			}
			if _, err := ts.store.Ban(context.Background(), store.Action{Actor: "bench", Reason: "bench"}, spec); err != nil {
				b.Fatal(err)
			}
		}
		benchHandshakes(b, ts.addr)
	})
	b.Run("bare", func(b *testing.B) {
		benchHandshakes(b, bareServer(b))
	})
}

// benchBans is how many bans BenchmarkHandshake/ssh2048-bans holds, a
// tenth of them ranges.
const benchBans = 1000

func benchHandshakes(b *testing.B, addr string) {
	cfg := &gossh.ClientConfig{
		User: "bench", Auth: []gossh.AuthMethod{gossh.PublicKeys(newKey(b))},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c, err := gossh.Dial("tcp", addr, cfg)
			if err != nil {
				b.Error(err)
				return
			}
			c.Close()
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "handshakes/s")
}

// bareServer is the least an x/crypto server does: accept any public key,
// refuse channels, hang up when the client does.
func bareServer(b *testing.B) string {
	b.Helper()
	cfg := &gossh.ServerConfig{
		PublicKeyCallback: func(gossh.ConnMetadata, gossh.PublicKey) (*gossh.Permissions, error) { return nil, nil },
	}
	cfg.AddHostKey(newKey(b)) // ed25519, as LoadOrCreateHostKey makes
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	b.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				_, chans, reqs, err := gossh.NewServerConn(c, cfg)
				if err != nil {
					return
				}
				go gossh.DiscardRequests(reqs)
				for ch := range chans {
					ch.Reject(gossh.Prohibited, "bare")
				}
			}()
		}
	}()
	return l.Addr().String()
}
