package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/ssh2048/ssh2048/migrations"
	"github.com/ssh2048/ssh2048/store"
)

// playScoring plays moves of a new 4×4 human game of player until its
// score is above zero (and at least n moves), and returns it.
func playScoring(t *testing.T, s *Store, player int64, n int, rng *rand.Rand) *store.SavedGame {
	t.Helper()
	ctx := context.Background()
	g, err := s.NewGame(ctx, player, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n || g.Engine.Score() == 0; i++ {
		if err := playMove(ctx, s, g, rng); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// storedBest is the player's row of player_bests as db holds it (score
// -1: none).
func storedBest(t *testing.T, db *sql.DB, player int64) (game int64, score int) {
	t.Helper()
	err := db.QueryRow(`SELECT game_id, score FROM player_bests WHERE player_id = ? AND size = 4 AND kind = 'human'`, player).Scan(&game, &score)
	if err == sql.ErrNoRows {
		return 0, -1
	}
	if err != nil {
		t.Fatal(err)
	}
	return game, score
}

// rawDB opens the store's file on a connection of its own, which runs
// none of the store's code (no offer on open).
func rawDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", dsn(filepath.Join(dir, FileName), true, "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestBestsFollowEveryCommittedMove: moves no longer write the bests, yet
// every read of them in the process (a leaderboard, a board's load for
// the ranks) sees every move committed before it.
func TestBestsFollowEveryCommittedMove(t *testing.T) {
	ctx := context.Background()
	reads := []struct {
		name string
		best func(s *Store, player int64) (game int64, score int)
	}{
		{"leaderboard", func(s *Store, player int64) (int64, int) {
			top, err := s.Leaderboard(ctx, 4, store.KindHuman, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range top {
				if e.PlayerID == player {
					return e.GameID, e.Score
				}
			}
			return 0, -1
		}},
		{"rank", func(s *Store, player int64) (int64, int) {
			e, err := s.PlayerRank(ctx, player, 4, store.KindHuman)
			if err != nil {
				t.Fatal(err)
			}
			return e.GameID, e.Score
		}},
	}
	for _, read := range reads {
		t.Run(read.name, func(t *testing.T) {
			s := openStore(t) // offered only before a read, as bestsEvery is long
			rng := rand.New(rand.NewPCG(1, 2))
			p := addPlayer(t, s, "mover")
			g := playScoring(t, s, p.ID, 10, rng)
			if _, score := storedBest(t, s.read, p.ID); score != -1 {
				t.Fatalf("the moves wrote the best themselves (score %d): nothing left to test", score)
			}
			for round := range 3 {
				game, score := read.best(s, p.ID)
				if game != g.ID || score != g.Engine.Score() {
					t.Fatalf("round %d: best read as game %d, %d; the game is %d with %d", round, game, score, g.ID, g.Engine.Score())
				}
				for g.Engine.Score() == score {
					if err := playMove(ctx, s, g, rng); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// TestBestsFollowMovesUnderConcurrentReads: with players moving and
// leaderboards read all the while (reads sharing offers), every read shows
// each player at least at the score of their last move acknowledged
// before it began.
func TestBestsFollowMovesUnderConcurrentReads(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	const players = 8
	acked := make([]atomic.Int64, players)
	ids := make([]int64, players)
	var playing, reading sync.WaitGroup
	stop := make(chan struct{})
	for i := range players {
		p := addPlayer(t, s, fmt.Sprintf("p%d", i))
		ids[i] = p.ID
		playing.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 9))
			g, err := s.NewGame(ctx, p.ID, 4, store.KindHuman)
			for err == nil {
				select {
				case <-stop:
					return
				default:
				}
				if _, ok := movingDirection(g.Engine, rng); !ok {
					g, err = s.NewGame(ctx, p.ID, 4, store.KindHuman)
				} else if err = playMove(ctx, s, g, rng); err == nil {
					acked[i].Store(int64(g.Engine.Score()))
				}
			}
			t.Error(err)
		})
	}
	for range 4 {
		reading.Go(func() {
			for range 50 {
				var want [players]int64
				for i := range players {
					want[i] = acked[i].Load()
				}
				top, err := s.Leaderboard(ctx, 4, store.KindHuman, players)
				if err != nil {
					t.Error(err)
					return
				}
				got := map[int64]int64{}
				for _, e := range top {
					got[e.PlayerID] = int64(e.Score)
				}
				for i, id := range ids {
					if got[id] < want[i] {
						t.Errorf("player %d read at %d after a move with %d was acknowledged", id, got[id], want[i])
						return
					}
				}
			}
		})
	}
	reading.Wait()
	close(stop)
	playing.Wait()
}

// TestBestsOfGamesInPlayAfterACrash: a process that stops without Close
// leaves its games' last moves unoffered; the next Open offers them.
func TestBestsOfGamesInPlayAfterACrash(t *testing.T) {
	dir := t.TempDir()
	crashed, err := Open(context.Background(), dir, WithLogger(quiet), WithBestsEvery(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { crashed.Close() })
	p := addPlayer(t, crashed, "crasher")
	g := playScoring(t, crashed, p.ID, 20, rand.New(rand.NewPCG(3, 4)))

	// The crashed process is never asked again: the next one opens the
	// file beside it, as a restart would.
	next, err := Open(context.Background(), dir, WithLogger(quiet), WithBestsEvery(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { next.Close() })
	if game, score := storedBest(t, rawDB(t, dir), p.ID); game != g.ID || score != g.Engine.Score() {
		t.Errorf("after the next Open the best is game %d with %d; want game %d with %d", game, score, g.ID, g.Engine.Score())
	}
}

// TestBestsReachOtherProcesses: what another process reads of the file
// (the sqlite3 shell, `ssh2048 scores`) follows the moves by the period,
// and by Close.
func TestBestsReachOtherProcesses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		every time.Duration
		close bool
	}{
		{"every period", 20 * time.Millisecond, false},
		{"on Close", time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(context.Background(), dir, WithLogger(quiet), WithBestsEvery(tc.every))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			p := addPlayer(t, s, "mover")
			g := playScoring(t, s, p.ID, 20, rand.New(rand.NewPCG(5, 6)))
			if tc.close {
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
			other := rawDB(t, dir)
			deadline := time.Now().Add(10 * time.Second)
			for {
				game, score := storedBest(t, other, p.ID)
				if game == g.ID && score == g.Engine.Score() {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("another connection reads game %d with %d; want game %d with %d", game, score, g.ID, g.Engine.Score())
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// TestBestsMigrationDown: going back before 00016 leaves bests that are
// never behind a game, as the per-move trigger it restores expects.
func TestBestsMigrationDown(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, WithLogger(quiet), WithBestsEvery(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	p := addPlayer(t, s, "mover")
	g := playScoring(t, s, p.ID, 20, rand.New(rand.NewPCG(7, 8)))
	// Stop the writer without Close's offer: what a crash leaves, once
	// the log is folded (Down refuses a log with moves in it).
	if err := s.w.do(context.Background(), func(ctx context.Context, tx *sql.Tx, _ int64) error { return s.mlog.foldAll(ctx, tx) }); err != nil {
		t.Fatal(err)
	}
	s.w.close()
	db, err := sql.Open("sqlite3", dsn(filepath.Join(dir, FileName), false, "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, score := storedBest(t, db, p.ID); score == g.Engine.Score() {
		t.Fatal("the best is already there: nothing left to test")
	}
	pr, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.SQLite, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.DownTo(context.Background(), 15); err != nil {
		t.Fatal(err)
	}
	if game, score := storedBest(t, db, p.ID); game != g.ID || score != g.Engine.Score() {
		t.Errorf("after Down the best is game %d with %d; want game %d with %d", game, score, g.ID, g.Engine.Score())
	}
	s.Close()
}
