package postgres_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
)

// BenchmarkLogin is the store's share of a new player's login on one
// node, its writes: the account (UpsertPlayer) and the game it opens
// (LoadOrCreateGame), from 64 sessions at once, as a ramp of `ssh2048
// load` brings them; logins a second and the p99 of one. Both writes go
// through the node's one logins writer, so each of their round trips is
// time the logins behind them wait: "delay=0" is PostgreSQL on the same
// machine, the others a database across a network, each round trip that
// much longer (postgres.WithDelay).
//
//	go test ./store/postgres -run '^$' -bench Login -benchtime 2000x
func BenchmarkLogin(b *testing.B) {
	for _, delay := range []time.Duration{0, 500 * time.Microsecond} {
		b.Run(fmt.Sprintf("delay=%v", delay), func(b *testing.B) {
			ctx := context.Background()
			s, err := postgres.Open(ctx, pgtest.Database(b), postgres.WithLogger(quiet), postgres.WithDelay(delay))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			var fresh atomic.Int64
			var lat latencies
			b.SetParallelism(64)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var mine []time.Duration
				for pb.Next() {
					n := fresh.Add(1)
					start := time.Now()
					p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:fresh-%d", n), "ssh-ed25519", fmt.Sprintf("fresh%d", n))
					if err == nil {
						_, err = s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
					}
					if err != nil {
						b.Error(err)
						return
					}
					mine = append(mine, time.Since(start))
				}
				lat.add(mine)
			})
			lat.report(b, "logins/s")
		})
	}
}
