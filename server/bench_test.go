package server_test

import (
	"slices"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	gossh "golang.org/x/crypto/ssh"
)

// BenchmarkBotReply measures one bot session over loopback: the time from
// sending a move to reading its reply. Every move sent changes the board,
// so with a key every reply waits for its durable commit; a guest's moves
// are not stored, which shows what the server adds on its own.
//
//	go test -run '^$' -bench BotReply -benchtime 3000x ./server/
func BenchmarkBotReply(b *testing.B) {
	b.Run("key", func(b *testing.B) {
		ts := startServer(b)
		benchBot(b, ts.dial(b, "bench", newKey(b)))
	})
	b.Run("guest", func(b *testing.B) {
		ts := startServer(b)
		benchBot(b, ts.dialGuest(b))
	})
}

func benchBot(b *testing.B, c *gossh.Client) {
	bot := startBot(b, c, "--new")
	st := bot.mustRead()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		if st.Over {
			b.StopTimer()
			bot.wait()
			bot = startBot(b, c, "--new")
			st = bot.mustRead()
			b.StartTimer()
		}
		d := movingDirection(b, st)
		start := time.Now()
		bot.send(d.String())
		st = bot.mustRead()
		lat = append(lat, time.Since(start))
		if !st.Moved {
			b.Fatalf("move %v did not move", d)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
}

// movingDirection returns a direction that changes the board.
func movingDirection(tb testing.TB, st state) engine.Direction {
	for _, d := range engine.Directions() {
		board := toBoard(tb, st.Board)
		if _, moved := board.Move(d); moved {
			return d
		}
	}
	tb.Fatal("no move changes the board, but the game is not over")
	return 0
}
