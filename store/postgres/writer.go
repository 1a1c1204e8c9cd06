package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/groupcommit"
)

// groupTimeout bounds one group's transaction: a server that stops
// answering fails the group's writes instead of holding their players
// forever.
const groupTimeout = 10 * time.Second

// writer puts every write of this node through package groupcommit over
// its own pool: one goroutine runs all pending writes in one transaction
// and commits once. A write's statements run on the group's context,
// never the caller's: cancelling a query mid-flight makes pgx close the
// connection, which would take the whole group down with it. When the
// server cannot be reached, a group's writes fail at once (isUnavailable)
// rather than each waiting for its own failure.
//
// Moves are pipelined (pipe): their statements go to the server in one
// round trip per group, not one each, since the writer's one connection
// waited for each answer before sending the next statement and those
// round trips, not the server's work, set the pace of every group. The
// group's BEGIN (lazyTx) and, when moves end the group, its COMMIT
// (FlushCommit) go in the same round trip.
//
// The moves queued for a flush (moves) go as one statement when they are
// of distinct games and nothing else is queued (applyMoves): PostgreSQL's
// cost of a statement (starting the executor, preparing the triggers'
// WHEN clauses and the check constraints again) is then paid once a
// group, not once a move. Otherwise each is its own statement in the
// pipeline.
type writer struct {
	*groupcommit.Writer[pgx.Tx]
	pool  *pgxpool.Pool
	pipe  *pgx.Batch   // the statements queued in the group's transaction
	moves []queuedMove // the moves queued there, sent before pipe
}

// queuedMove is a move waiting for the next flush; applied says, after
// it, whether the move's statement matched its game.
type queuedMove struct {
	id      int64
	seq     int
	dir     int16
	st      store.MoveState
	now     int64
	applied *bool
}

// queueMove queues a move for the next flush (writer goroutine only) and
// returns where the flush says whether it was applied.
func (w *writer) queueMove(id int64, seq int, d int16, st store.MoveState, now int64) *bool {
	applied := new(bool)
	w.moves = append(w.moves, queuedMove{id: id, seq: seq, dir: d, st: st, now: now, applied: applied})
	return applied
}

func newWriter(pool *pgxpool.Pool, log *slog.Logger, obs store.Observer) *writer {
	w := &writer{pool: pool, pipe: &pgx.Batch{}}
	w.Writer = groupcommit.New[pgx.Tx](txConn{pool, w}, groupcommit.Config{
		Log: log, Obs: obs, GroupTimeout: groupTimeout, Unavailable: isUnavailable,
	})
	return w
}

// reject marks err as refusing a write before it wrote anything
// (groupcommit.Reject): the other writes of its group go on.
func reject(err error) error { return groupcommit.Reject(err) }

// do queues fn and waits for its group's commit (groupcommit.Writer.Do).
func (w *writer) do(ctx context.Context, fn func(ctx context.Context, tx pgx.Tx, now int64) error) error {
	return w.Do(ctx, fn)
}

// pipelined queues a write whose statements go to the server with the
// others' of its group (groupcommit.Writer.DoPipelined): queue adds them
// to the pipeline (w.pipe, which only the writer's goroutine touches)
// and returns the check that reads their outcome once they are answered.
func (w *writer) pipelined(ctx context.Context, queue func(pipe *pgx.Batch, tx pgx.Tx, now int64) (check func(ctx context.Context) error)) error {
	return w.DoPipelined(ctx, func(_ context.Context, tx pgx.Tx, now int64) func(context.Context) error {
		return queue(w.pipe, tx, now)
	})
}

func (w *writer) close() { w.Close() }

// txConn gives groupcommit the writer pool's transactions, and sends
// their pipelines (groupcommit.Pipeliner).
type txConn struct {
	pool *pgxpool.Pool
	w    *writer
}

func (c txConn) Begin(ctx context.Context) (pgx.Tx, error) {
	c.w.pipe, c.w.moves = &pgx.Batch{}, nil // what a failed group left queued is gone with it
	tx, err := beginLazy(ctx, c.pool)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	return tx, nil
}

func (txConn) Commit(ctx context.Context, tx pgx.Tx) error { return tx.Commit(ctx) }

func (txConn) Rollback(tx pgx.Tx) { tx.Rollback(context.Background()) }

// rowQuerier reads one row: a transaction, or the read pool.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// FlushCommit sends the queued statements and COMMIT in one round trip
// (groupcommit.FlushCommitter); tx has ended when it returns nil.
func (c txConn) FlushCommit(ctx context.Context, tx pgx.Tx) error {
	c.queueMoves()
	c.w.pipe.Queue("commit").Exec(func(tag pgconn.CommandTag) error {
		if tag.String() == "ROLLBACK" {
			return pgx.ErrTxCommitRollback
		}
		return nil
	})
	pipe := c.w.pipe
	c.w.pipe = &pgx.Batch{}
	if err := tx.SendBatch(ctx, pipe).Close(); err != nil {
		return err
	}
	return tx.(*lazyTx).committed()
}

// Flush sends the queued statements in one round trip and reads every
// answer, running their callbacks (a write's check reads what its
// callback kept); the first error spoils the transaction.
func (c txConn) Flush(ctx context.Context, tx pgx.Tx) error {
	c.queueMoves()
	pipe := c.w.pipe
	if pipe.Len() == 0 {
		return nil
	}
	c.w.pipe = &pgx.Batch{}
	return tx.SendBatch(ctx, pipe).Close()
}

// queueMoves moves the moves waiting for the flush into the pipeline:
// one statement when they are of distinct games and nothing else is
// queued, else one each.
func (c txConn) queueMoves() {
	moves := c.w.moves
	c.w.moves = nil
	if len(moves) > 1 && c.w.pipe.Len() == 0 && distinctGames(moves) {
		queueMoves(c.w.pipe, moves)
		return
	}
	for _, m := range moves {
		applied := m.applied
		c.w.pipe.Queue(appendMoveSQL, m.id, m.st.Score, m.st.MaxTile, m.st.Moves, m.st.Won, m.st.Board, m.now, m.seq, m.dir, m.st.Fence).
			Exec(func(ct pgconn.CommandTag) error { *applied = ct.RowsAffected() > 0; return nil })
	}
}

func distinctGames(moves []queuedMove) bool {
	seen := make(map[int64]bool, len(moves))
	for _, m := range moves {
		if seen[m.id] {
			return false
		}
		seen[m.id] = true
	}
	return true
}

// queueMoves queues moves of distinct games as one statement
// (appendMovesSQL) that marks those whose game it updated.
func queueMoves(pipe *pgx.Batch, moves []queuedMove) {
	n := len(moves)
	var (
		ids, scores, maxTiles, nows, fences = make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		seqs, counts                        = make([]int32, n), make([]int32, n)
		wons                                = make([]bool, n)
		boards                              = make([]string, n)
		dirs                                = make([]int16, n)
		byGame                              = make(map[int64]*bool, n)
	)
	for i, m := range moves {
		ids[i], scores[i], maxTiles[i], nows[i], fences[i] = m.id, int64(m.st.Score), int64(m.st.MaxTile), m.now, m.st.Fence
		seqs[i], counts[i], wons[i], boards[i], dirs[i] = int32(m.seq), int32(m.st.Moves), m.st.Won, m.st.Board, m.dir
		byGame[m.id] = m.applied
	}
	pipe.Queue(appendMovesSQL, ids, scores, maxTiles, counts, wons, boards, nows, seqs, dirs, fences).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return fmt.Errorf("queued moves: %w", err)
			}
			if applied := byGame[id]; applied != nil {
				*applied = true
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("queued moves: %w", err)
		}
		return nil
	})
}
