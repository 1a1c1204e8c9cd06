package postgres_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/migrations"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
)

// TestMoveChunksMigration: migration 00019 moves every game's moves from a
// row a move into chunks and the games' tails, and its Down back, each
// move where it was; the store reads them back as they were stored, and
// goes on appending to a migrated game (the twin of SQLite's test of its
// 00015).
func TestMoveChunksMigration(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	s := openNode(t, url, "a", time.Hour)
	pool := rawPool(t, url)
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.Postgres, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	const board = "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2"
	lengths := []int{0, 1, 63, 64, 65, 200}
	ids := make([]int64, len(lengths))
	for i := range lengths {
		g := newScorer(t, s, []string{"m0", "m1", "m2", "m3", "m4", "m5"}[i])
		ids[i] = g.game
	}
	if _, err := p.DownTo(ctx, 18); err != nil {
		t.Fatalf("down to 00018: %v", err)
	}
	rng := rand.New(rand.NewPCG(19, 19))
	want := map[int64][]engine.Direction{}
	for i, n := range lengths {
		id := ids[i]
		for seq := range n {
			d := engine.Direction(rng.IntN(4))
			if _, err := pool.Exec(ctx, `INSERT INTO moves (game_id, seq, dir) VALUES ($1, $2, $3)`, id, seq, int16(d)); err != nil {
				t.Fatal(err)
			}
			want[id] = append(want[id], d)
		}
		if _, err := pool.Exec(ctx, `UPDATE games SET moves = $2 WHERE id = $1`, id, n); err != nil {
			t.Fatal(err)
		}
	}
	storedAsRows := func(when string) {
		t.Helper()
		for i, id := range ids {
			rows, err := pool.Query(ctx, `SELECT seq, dir FROM moves WHERE game_id = $1 ORDER BY seq`, id)
			if err != nil {
				t.Fatal(err)
			}
			got, err := store.ScanMoves(rows)
			rows.Close()
			if err != nil || !slices.Equal(got, want[id]) {
				t.Errorf("%s: game of %d moves has rows %v (%v), want %v", when, lengths[i], got, err, want[id])
			}
		}
		var chunks bool
		if err := pool.QueryRow(ctx, `SELECT to_regclass('move_chunks') IS NOT NULL`).Scan(&chunks); err != nil || chunks {
			t.Errorf("%s: move_chunks is still there (%v)", when, err)
		}
	}
	storedAsChunks := func(when string) {
		t.Helper()
		for i, id := range ids {
			n := lengths[i]
			g, err := s.FullGame(ctx, id)
			if err != nil || !slices.Equal(g.Dirs, want[id]) {
				t.Errorf("%s: game of %d moves reads back %v (%v), want %v", when, n, g.Dirs, err, want[id])
			}
			var chunks, tail int
			if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM move_chunks WHERE game_id = $1), (SELECT length(tail) FROM games WHERE id = $1)`, id).
				Scan(&chunks, &tail); err != nil || chunks != n/store.ChunkLen || tail != n%store.ChunkLen {
				t.Errorf("%s: game of %d moves has %d chunks and a tail of %d (%v), want %d and %d", when, n, chunks, tail, err, n/store.ChunkLen, n%store.ChunkLen)
			}
		}
	}
	storedAsRows("before 00019")
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	storedAsChunks("after Up")
	if _, err := p.DownTo(ctx, 18); err != nil {
		t.Fatalf("down to 00018: %v", err)
	}
	storedAsRows("after Down")
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	storedAsChunks("after Up again")

	// The game of 63 moves goes on: its 64th move fills its first chunk.
	id := ids[2]
	if err := s.AppendMove(ctx, id, 63, engine.Left, store.MoveState{Moves: 64, Board: board}); err != nil {
		t.Fatal(err)
	}
	want[id] = append(want[id], engine.Left)
	lengths[2] = 64
	storedAsChunks("after a 64th move")
}
