package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// BenchmarkLogin is the store's share of a login, UpsertPlayer, from
// many sessions at once, as the server's identify middleware calls it
// once per session: "known", a key of one of 1,000 players; "new", a
// key never seen (what `ssh2048 load`'s fresh keys cost), named after
// its user name.
//
//	go test ./store/sqlite -run '^$' -bench Login -benchtime 3s
func BenchmarkLogin(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir(), WithLogger(quiet))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	const players = 1000
	for i := range players {
		if _, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:login-%d", i), "ssh-ed25519", fmt.Sprintf("login%d", i)); err != nil {
			b.Fatal(err)
		}
	}
	login := func(b *testing.B, key func() (fp, user string)) {
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				fp, user := key()
				if _, err := s.UpsertPlayer(ctx, fp, "ssh-ed25519", user); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.Run("known", func(b *testing.B) {
		login(b, func() (string, string) { return fmt.Sprintf("SHA256:login-%d", rand.IntN(players)), "someone" })
	})
	var fresh atomic.Int64
	b.Run("new", func(b *testing.B) {
		login(b, func() (string, string) {
			n := fresh.Add(1)
			return fmt.Sprintf("SHA256:fresh-%d", n), fmt.Sprintf("fresh%d", n)
		})
	})
}
