package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/migrations"
	"github.com/ssh2048/ssh2048/store"
)

func TestMain(m *testing.M) {
	code := m.Run()
	removeFixture()
	os.Exit(code)
}

// BenchmarkAppendMove measures moves committed per second with many
// sessions each playing as fast as acknowledgements come back (a closed
// loop: far more load than real players make), and the p99 latency of one
// AppendMove, from call to acknowledged commit. By Little's law the
// latency grows with the number of writers at saturation, so it runs with
// 16 and with 64 writers, for both durability settings.
func BenchmarkAppendMove(b *testing.B) {
	for _, d := range []Durability{PowerSafe, CrashSafe} {
		for _, writers := range []int{16, 64} {
			b.Run(fmt.Sprintf("sync=%s/writers=%d", d, writers), func(b *testing.B) { benchAppend(b, d, writers) })
		}
	}
}

func benchAppend(b *testing.B, d Durability, writers int) {
	ctx := context.Background()
	s := openStore(b, WithDurability(d))
	games := make(chan *store.SavedGame, writers)
	for i := range writers {
		p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:bench-%d", i), "ssh-ed25519", "bench")
		if err != nil {
			b.Fatal(err)
		}
		g, err := s.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
		if err != nil {
			b.Fatal(err)
		}
		games <- g
	}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		seeds     atomic.Uint64
	)
	b.SetParallelism((writers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		g := <-games
		rng := rand.New(rand.NewPCG(seeds.Add(1), 7))
		var mine []time.Duration
		for pb.Next() {
			var took time.Duration
			var err error
			if g, took, err = timedMove(ctx, s, g, rng); err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, took)
		}
		mu.Lock()
		latencies = append(latencies, mine...)
		mu.Unlock()
	})
	b.StopTimer()
	var stored int
	if err := s.read.QueryRow(`SELECT coalesce(sum(` + storedMoves + `), 0) FROM games g`).Scan(&stored); err != nil || stored != len(latencies) {
		b.Fatalf("%d moves stored (%v), %d acknowledged", stored, err, len(latencies))
	}
	slices.Sort(latencies)
	if len(latencies) > 0 {
		p99 := latencies[min(len(latencies)-1, len(latencies)*99/100)]
		b.ReportMetric(float64(len(latencies))/b.Elapsed().Seconds(), "moves/s")
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	}
}

// The leaderboard fixture: 1,000,000 games by 100,000 players, built once
// per test binary run in a temporary directory (removed by TestMain).
const (
	fixturePlayers = 100_000
	fixtureGames   = 1_000_000
)

var fixture struct {
	once    sync.Once
	dir     string
	err     error
	ranked  []int64 // players with a 4×4 human best
	last    int64   // the player ranked last on 4×4 human
	buildIn time.Duration
}

func removeFixture() {
	if fixture.dir != "" {
		os.RemoveAll(fixture.dir)
	}
}

// buildFixture bulk-inserts the fixture in one transaction, computing each
// player's bests as it goes, as the writer would have kept them.
func buildFixture() error {
	start := time.Now()
	dir, err := os.MkdirTemp("", "ssh2048-bench-")
	if err != nil {
		return err
	}
	fixture.dir = dir
	ctx := context.Background()
	// A fixture, not data: no journal, no syncs, a big cache, one
	// connection; the schema comes from the real migrations. Open turns
	// the file into a WAL database afterwards.
	path := filepath.Join(dir, FileName)
	bulk, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=OFF&_synchronous=OFF&_cache_size=-524288&_foreign_keys=off")
	if err != nil {
		return err
	}
	defer bulk.Close()
	bulk.SetMaxOpenConns(1)
	if _, err := bulk.Exec(`PRAGMA temp_store = MEMORY`); err != nil {
		return err
	}
	if err := migrate(ctx, bulk, path+".migrate-lock", migrations.SQLite, quiet); err != nil {
		return err
	}
	tx, err := bulk.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Generated inside SQLite (recursive CTEs, random()): a million rows
	// in seconds, where a million Execs from Go take half a minute.
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	steps := []struct {
		what, sql string
		args      []any
	}{
		// Indexes are dropped and rebuilt around the bulk insert: building
		// one from sorted data beats a million random index inserts.
		{"drop indexes", `DROP INDEX games_player; DROP INDEX player_bests_rank`, nil},
		{"players", `
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
			INSERT INTO players (id, fingerprint, key_type, name, first_seen, last_seen)
			SELECT i, 'SHA256:fixture-' || i, 'ssh-ed25519', 'player' || i, ?2, ?2 FROM n`,
			[]any{fixturePlayers, epoch}},
		// Sizes: 4×4 six times in eleven, others one each; kinds: five in
		// seven human; scores skewed (a product of two uniforms) with ties.
		{"games", `
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1),
			r AS (SELECT i, abs(random()) AS a, abs(random()) AS b, abs(random() % 60001) * abs(random() % 1001) / 1000 AS score FROM n),
			g AS (SELECT i, 1 + a % ?2 AS player, b % 11 AS sz, (b / 11) % 7 AS k, score,
			             ?3 + (a / ?2) % (300 * 86400 * 1000000) AS started, score / 8 + 1 AS moves FROM r)
			INSERT INTO games (id, player_id, size, kind, seed, score, max_tile, moves, won, board, started_at, updated_at, reached_at, ended_at)
			SELECT i, player,
			       CASE sz WHEN 6 THEN 3 WHEN 7 THEN 5 WHEN 8 THEN 6 WHEN 9 THEN 7 WHEN 10 THEN 8 ELSE 4 END,
			       CASE k WHEN 5 THEN 'assisted' WHEN 6 THEN 'bot' ELSE 'human' END,
			       random(), score, 2, moves, 0, '0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0',
			       started, started + moves * 500000, started + moves * 500000, started + moves * 500000
			FROM g`,
			[]any{fixtureGames, fixturePlayers, epoch}},
		{"index games", `CREATE INDEX games_player ON games(player_id);
			CREATE INDEX fixture_best ON games(player_id, size, kind, score DESC, reached_at, id)`, nil},
		{"bests", `
			INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
			SELECT player_id, size, kind, id, score, reached_at FROM (
			    SELECT player_id, size, kind, id, score, reached_at,
			           row_number() OVER (PARTITION BY player_id, size, kind ORDER BY score DESC, reached_at, id) AS rn
			    FROM games)
			WHERE rn = 1`, nil},
		{"index bests", `DROP INDEX fixture_best;
			CREATE INDEX player_bests_rank ON player_bests(size, kind, score DESC, reached_at, game_id)`, nil},
	}
	for _, st := range steps {
		if _, err := tx.Exec(st.sql, st.args...); err != nil {
			return fmt.Errorf("fixture %s: %w", st.what, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	rows, err := bulk.Query(`SELECT player_id FROM player_bests WHERE size = 4 AND kind = 'human'`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		fixture.ranked = append(fixture.ranked, id)
	}
	rows.Close()
	slices.Sort(fixture.ranked)
	err = bulk.QueryRow(`SELECT player_id FROM player_bests WHERE size = 4 AND kind = 'human' ORDER BY score, reached_at DESC, game_id DESC LIMIT 1`).Scan(&fixture.last)
	fixture.buildIn = time.Since(start)
	return err
}

// BenchmarkLeaderboard runs the leaderboard queries against the fixture.
// Building it (once per run, ~seconds) is outside the timed loops.
func BenchmarkLeaderboard(b *testing.B) {
	fixture.once.Do(func() { fixture.err = buildFixture() })
	if fixture.err != nil {
		b.Fatal(fixture.err)
	}
	b.Logf("fixture: %d games, %d players, %d on the 4×4 human board, built in %v (%s)",
		fixtureGames, fixturePlayers, len(fixture.ranked), fixture.buildIn.Round(time.Millisecond), filepath.Base(fixture.dir))
	ctx := context.Background()
	s, err := Open(ctx, fixture.dir, WithLogger(quiet))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	msPerOp := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	}
	b.Run("top10", func(b *testing.B) {
		for b.Loop() {
			rows, err := s.Leaderboard(ctx, 4, store.KindHuman, 10)
			if err != nil || len(rows) != 10 {
				b.Fatal(len(rows), err)
			}
		}
		msPerOp(b)
	})
	b.Run("rank", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 1))
		for b.Loop() {
			p := fixture.ranked[rng.IntN(len(fixture.ranked))]
			if _, err := s.PlayerRank(ctx, p, 4, store.KindHuman); err != nil {
				b.Fatal(err)
			}
		}
		msPerOp(b)
	})
	b.Run("rank-last", func(b *testing.B) {
		for b.Loop() {
			e, err := s.PlayerRank(ctx, fixture.last, 4, store.KindHuman)
			if err != nil || e.Rank != len(fixture.ranked) {
				b.Fatalf("rank %d of %d, %v", e.Rank, len(fixture.ranked), err)
			}
		}
		msPerOp(b)
	})
}

// BenchmarkAppendMovePaced is the load of a busy server rather than a
// stress test: 300 sessions each making a move every 300 ms (with jitter),
// about 1,000 moves/s offered, and 2,000 sessions a move every 500 ms,
// about 4,000 moves/s (2,000 players at 2 keys a second). One op is one
// round: every session makes one move (so ns/op is about the period). It
// reports the latency players see (p50, p99, max), moves per group commit
// and the process's CPU time per move, for both durability settings.
func BenchmarkAppendMovePaced(b *testing.B) {
	for _, d := range []Durability{PowerSafe, CrashSafe} {
		for _, load := range []struct {
			sessions int
			period   time.Duration
		}{{300, 300 * time.Millisecond}, {2000, 500 * time.Millisecond}} {
			b.Run(fmt.Sprintf("sync=%s/sessions=%d", d, load.sessions), func(b *testing.B) {
				benchPaced(b, d, load.sessions, load.period)
			})
		}
	}
}

func benchPaced(b *testing.B, d Durability, sessions int, period time.Duration) {
	ctx := context.Background()
	s := openStore(b, WithDurability(d))
	games := make([]*store.SavedGame, sessions)
	for i := range sessions {
		p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:paced-%d", i), "ssh-ed25519", "paced")
		if err != nil {
			b.Fatal(err)
		}
		if games[i], err = s.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman); err != nil {
			b.Fatal(err)
		}
	}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		wg        sync.WaitGroup
	)
	commits0, cpu0 := s.w.Commits(), cpuTime(b)
	b.ResetTimer()
	for i, g := range games {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 3))
			time.Sleep(time.Duration(rng.Int64N(int64(period / 2)))) // spread the sessions out
			var mine []time.Duration
			for range b.N {
				var took time.Duration
				var err error
				if g, took, err = timedMove(ctx, s, g, rng); err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, took)
				time.Sleep(period/2 + time.Duration(rng.Int64N(int64(period))) - took)
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	b.StopTimer()
	commits, cpu := s.w.Commits()-commits0, cpuTime(b)-cpu0
	slices.Sort(latencies)
	if n := len(latencies); n > 0 {
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "moves/s")
		b.ReportMetric(float64(n)/float64(max(commits, 1)), "moves/commit")
		b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/move")
		b.ReportMetric(float64(latencies[n/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(latencies[min(n-1, n*99/100)].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(latencies[n-1].Microseconds())/1000, "max-ms")
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timedMove plays one move of g and times it (the commit included); a game
// with no move left is ended and replaced by a new one first, untimed.
func timedMove(ctx context.Context, s *Store, g *store.SavedGame, rng *rand.Rand) (*store.SavedGame, time.Duration, error) {
	if _, ok := movingDirection(g.Engine, rng); !ok {
		var err error
		if err = s.EndGame(ctx, g.ID, store.StateOf(g.Engine)); err == nil {
			g, err = s.NewGame(ctx, g.PlayerID, g.Size, store.KindHuman)
		}
		if err != nil {
			return g, 0, err
		}
	}
	start := time.Now()
	err := playMove(ctx, s, g, rng)
	return g, time.Since(start), err
}

// BenchmarkRankUnderWrites is the header's rank read on a busy server:
// 1,000 players with a game of 4×4, a move of one of them committed every
// 2 ms in the background (each commit changes the file, so every read
// connection starts again from a cold page cache, as under load), and one
// op is PlayerRank of a random player, timed on its own goroutine.
// cpu-µs/op is the process's CPU time per read, less what the background
// moves took in a second before the reads.
func BenchmarkRankUnderWrites(b *testing.B) {
	ctx := context.Background()
	s := openStore(b)
	const players = 1000
	rng := rand.New(rand.NewPCG(5, 5))
	games := make([]*store.SavedGame, players)
	ids := make([]int64, players)
	var setup sync.WaitGroup
	for w := range 50 { // concurrently, so that the moves commit in groups
		setup.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 5))
			for i := w; i < players; i += 50 {
				p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:rank-%d", i), "ssh-ed25519", "rank")
				if err != nil {
					b.Error(err)
					return
				}
				ids[i] = p.ID
				if games[i], err = s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman); err != nil {
					b.Error(err)
					return
				}
				for range 1 + rng.IntN(40) {
					if err := playMove(ctx, s, games[i], rng); err != nil {
						break
					}
				}
			}
		})
	}
	setup.Wait()
	if b.Failed() {
		return
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		rng := rand.New(rand.NewPCG(6, 6))
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			i := rng.IntN(players)
			if g, _, err := timedMove(ctx, s, games[i], rng); err == nil {
				games[i] = g
			}
		}
	})
	// The background moves' CPU, per second, is taken off the reads'.
	idle0, idleAt := cpuTime(b), time.Now()
	time.Sleep(time.Second)
	idle := float64(cpuTime(b)-idle0) / float64(time.Since(idleAt))
	cpu0 := cpuTime(b)
	b.ResetTimer()
	// A session's context, as the server's reads have: one that can end.
	session, cancel := context.WithCancel(ctx)
	defer cancel()
	for b.Loop() {
		if _, err := s.PlayerRank(session, ids[rng.IntN(players)], 4, store.KindHuman); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := float64(cpuTime(b)-cpu0) - idle*float64(b.Elapsed())
	b.ReportMetric(cpu/1000/float64(b.N), "cpu-µs/op")
	close(stop)
	wg.Wait()
}
