package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/migrations"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
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

// TestOnlyAppliedMovesFillChunks: the move that fills a game's first
// chunk writes the chunk only if its guarded update applied it, through
// the statement of one move and through a group's statement alike: a
// move refused for its score or for a stale fence leaves its game's tail
// as it was and writes no row of move_chunks, while the applied move
// beside it in the same transaction (or the same statement) fills its
// game's chunk with the tail and itself.
func TestOnlyAppliedMovesFillChunks(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	s := openStore(t, url)
	pool := rawPool(t, url)
	const board = "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2"
	// move is a game at 63 moves with a score of 8, and the 64th move
	// sent for it.
	type move struct {
		why         string // why it is refused; "" if it applies
		game, fence int64
		score       int64
		tail        string
		dir         engine.Direction
	}
	// Each statement sends its moves, seq 63, in one writer job, and
	// returns the ids of the games it applied a move to.
	statements := []struct {
		name string
		send func(tx pgx.Tx, ms []move) ([]int64, error)
	}{
		{"a statement a move", func(tx pgx.Tx, ms []move) ([]int64, error) {
			var applied []int64
			for _, m := range ms {
				rows, err := tx.Query(ctx, postgres.AppendMoveSQL, m.game, m.score, 4, 64, false, board, time.Now().UnixMicro(), 63, int16(m.dir), m.fence)
				if err != nil {
					return nil, err
				}
				ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
				if err != nil {
					return nil, err
				}
				applied = append(applied, ids...)
			}
			return applied, nil
		}},
		{"a group's statement", func(tx pgx.Tx, ms []move) ([]int64, error) {
			var (
				ids, scores, maxTiles, nows, fences []int64
				seqs, counts                        []int32
				wons                                []bool
				boards                              []string
				dirs                                []int16
			)
			for _, m := range ms {
				ids, scores, maxTiles, nows, fences = append(ids, m.game), append(scores, m.score), append(maxTiles, 4), append(nows, time.Now().UnixMicro()), append(fences, m.fence)
				seqs, counts, wons, boards, dirs = append(seqs, 63), append(counts, 64), append(wons, false), append(boards, board), append(dirs, int16(m.dir))
			}
			rows, err := tx.Query(ctx, postgres.AppendMovesSQL, ids, scores, maxTiles, counts, wons, boards, nows, seqs, dirs, fences)
			if err != nil {
				return nil, err
			}
			return pgx.CollectRows(rows, pgx.RowTo[int64])
		}},
	}
	rng := rand.New(rand.NewPCG(64, 63))
	for i, st := range statements {
		t.Run(st.name, func(t *testing.T) {
			var ms []move
			for j, why := range []string{"", "a lower score", "a stale fence", ""} {
				p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:fill-%d-%d", i, j), "ssh-ed25519", "fill")
				if err != nil {
					t.Fatal(err)
				}
				g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
				if err != nil {
					t.Fatal(err)
				}
				m := move{why: why, game: g.ID, fence: g.Fence, score: 8, dir: engine.Direction(rng.IntN(4))}
				for range store.ChunkLen - 1 {
					m.tail += store.MoveDigit(engine.Direction(rng.IntN(4)))
				}
				if _, err := pool.Exec(ctx, `UPDATE games SET moves = 63, score = 8, tail = $2 WHERE id = $1`, g.ID, m.tail); err != nil {
					t.Fatal(err)
				}
				switch why {
				case "a lower score":
					m.score = 4
				case "a stale fence":
					m.fence++
				}
				ms = append(ms, m)
			}
			var applied []int64
			err := postgres.Write(s, ctx, func(_ context.Context, tx pgx.Tx, _ int64) (err error) {
				applied, err = st.send(tx, ms)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				wantChunks, wantTail := []string{m.tail + store.MoveDigit(m.dir)}, ""
				if m.why != "" {
					wantChunks, wantTail = nil, m.tail
				}
				if slices.Contains(applied, m.game) != (m.why == "") {
					t.Errorf("move of game %d (refused for %q): applied is %v", m.game, m.why, applied)
				}
				rows, err := pool.Query(ctx, `SELECT dirs FROM move_chunks WHERE game_id = $1 ORDER BY first_seq`, m.game)
				if err != nil {
					t.Fatal(err)
				}
				chunks, err := pgx.CollectRows(rows, pgx.RowTo[string])
				if err != nil {
					t.Fatal(err)
				}
				var tail string
				if err := pool.QueryRow(ctx, `SELECT tail FROM games WHERE id = $1`, m.game).Scan(&tail); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(chunks, wantChunks) || tail != wantTail {
					t.Errorf("game %d (move refused for %q) has chunks %q and tail %q, want %q and %q", m.game, m.why, chunks, tail, wantChunks, wantTail)
				}
			}
		})
	}
}
