package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
)

// TestMovesUpdateGamesInPlace: a move's update of its game's row is a HOT
// update (the new version on the same page, no new index entries), which
// needs that no index of games covers a column a move changes and that
// the row's page has room (migration 00017). Many games take scoring
// moves, as players do; PostgreSQL's own counters must then show nearly
// every update of games as HOT.
func TestMovesUpdateGamesInPlace(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	s := openStore(t, url)
	const games, rounds = 300, 8
	ids := make([]int64, games)
	for i := range ids {
		p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:hot%d", i), "ssh-ed25519", fmt.Sprintf("hot%d", i))
		if err != nil {
			t.Fatal(err)
		}
		g, err := s.NewGame(ctx, p.ID, 4, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = g.ID
	}
	const board = "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2"
	for r := range rounds {
		for _, id := range ids {
			st := store.MoveState{Score: 4 * (r + 1), MaxTile: 2, Moves: r + 1, Board: board}
			if err := s.AppendMove(ctx, id, r, engine.Left, st); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A backend's counters reach the shared statistics when it ends, at
	// the latest: close the store, then read them.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var updates, hot int64
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		err := pool.QueryRow(ctx, `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'games'`).Scan(&updates, &hot)
		if err != nil {
			t.Fatal(err)
		}
		if updates >= games*rounds || time.Now().After(deadline) {
			break
		}
	}
	if updates < games*rounds {
		t.Fatalf("games shows %d updates, want at least the %d moves'", updates, games*rounds)
	}
	t.Logf("%d of %d updates of games HOT", hot, updates)
	if hot < updates*9/10 {
		t.Errorf("%d of %d updates of games were HOT, want nearly all: an index covers a column a move changes, or pages have no room", hot, updates)
	}
}
