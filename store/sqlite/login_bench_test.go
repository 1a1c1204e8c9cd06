package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkLogin is the store's share of a login: UpsertPlayer of a key
// it knows (of 1,000 players), from many sessions at once, as the
// server's identify middleware calls it once per session.
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
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := rand.IntN(players)
			if _, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:login-%d", i), "ssh-ed25519", "someone"); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
