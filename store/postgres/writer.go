package postgres

import (
	"context"
	"errors"
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
type writer struct {
	*groupcommit.Writer[pgx.Tx]
	pool *pgxpool.Pool
}

func newWriter(pool *pgxpool.Pool, log *slog.Logger, obs store.Observer) *writer {
	return &writer{pool: pool, Writer: groupcommit.New[pgx.Tx](txConn{pool}, groupcommit.Config{
		Log: log, Obs: obs, GroupTimeout: groupTimeout, Unavailable: isUnavailable,
	})}
}

// reject marks err as refusing a write before it wrote anything
// (groupcommit.Reject): the other writes of its group go on.
func reject(err error) error { return groupcommit.Reject(err) }

// do queues fn and waits for its group's commit (groupcommit.Writer.Do).
func (w *writer) do(ctx context.Context, fn func(ctx context.Context, tx pgx.Tx, now int64) error) error {
	return w.Do(ctx, fn)
}

func (w *writer) close() { w.Close() }

// txConn gives groupcommit the writer pool's transactions, as *groupTx.
type txConn struct{ pool *pgxpool.Pool }

func (c txConn) Begin(ctx context.Context) (pgx.Tx, error) {
	tx, err := c.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	return &groupTx{Tx: tx}, nil
}

// Commit sends the moves still queued, then commits. A queued move that
// was refused fails the commit (the group is rolled back): groupcommit
// then runs the group's writes again one transaction each, where the
// refused move's own commit fails with why it was refused.
func (txConn) Commit(ctx context.Context, tx pgx.Tx) error {
	if err := tx.(*groupTx).flush(ctx); err != nil {
		tx.Rollback(context.Background())
		return err
	}
	return tx.Commit(ctx)
}

func (txConn) Rollback(tx pgx.Tx) { tx.Rollback(context.Background()) }

// groupTx is a group's transaction. Moves, the bulk of the writes, do not
// wait for their statement's answer one by one: each is queued (queueMove)
// and the group's moves are sent together before the next statement of
// another kind or the COMMIT, as one statement when they are of distinct
// games (applyMoves; else pipelined, one statement each). A group of n
// moves then costs three round trips (BEGIN, the moves, COMMIT), not n+2,
// and PostgreSQL starts one statement, not n: on a busy machine each
// round trip was a wait of the node's only writer for the server's
// process to be scheduled, and the writer was busy the whole run at 500
// players (docs/multi-node.md, Figures). Every other statement sends the
// queued moves first, so statements still run in the order the writes
// came. Writes use nothing of pgx.Tx but Exec, Query and QueryRow.
type groupTx struct {
	pgx.Tx
	moves []queuedMove
	batch pgx.Batch
}

// queuedMove is a move's fenced statement, sent at the next flush.
type queuedMove struct {
	id    int64
	count int
	st    store.MoveState
	now   int64
	dir   int16
}

// queueMove queues a move's statement (appendMoveSQL with args); the move
// is refused, at the flush, if it matches no row.
func (g *groupTx) queueMove(id int64, count int, d int16, st store.MoveState, now int64) {
	g.batch.Queue(appendMoveSQL, id, st.Score, st.MaxTile, st.Moves, st.Won, st.Board, now, count, d, st.Fence)
	g.moves = append(g.moves, queuedMove{id: id, count: count, st: st, now: now, dir: d})
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

// applyMoves applies moves of distinct games in one statement
// (appendMovesSQL): PostgreSQL's cost of a statement (starting the
// executor, preparing the triggers' and constraints' expressions) is then
// paid once a group, not once a move. A move that matched no row fails
// it as in flush.
func (g *groupTx) applyMoves(ctx context.Context, moves []queuedMove) error {
	n := len(moves)
	var (
		ids, scores, maxTiles, nows, fences = make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		counts, moveCounts                  = make([]int32, n), make([]int32, n)
		wons                                = make([]bool, n)
		boards                              = make([]string, n)
		dirs                                = make([]int16, n)
	)
	for i, m := range moves {
		ids[i], scores[i], maxTiles[i], nows[i], fences[i] = m.id, int64(m.st.Score), int64(m.st.MaxTile), m.now, m.st.Fence
		counts[i], moveCounts[i], wons[i], boards[i], dirs[i] = int32(m.count), int32(m.st.Moves), m.st.Won, m.st.Board, m.dir
	}
	rows, err := g.Tx.Query(ctx, appendMovesSQL, ids, scores, maxTiles, moveCounts, wons, boards, nows, counts, dirs, fences)
	if err != nil {
		return fmt.Errorf("queued moves: %w", err)
	}
	applied := make(map[int64]bool, n)
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("queued moves: %w", err)
		}
		applied[id] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("queued moves: %w", err)
	}
	for _, m := range moves {
		if !applied[m.id] {
			return refusedMove{whyRefused(ctx, g.Tx, m.id, m.count, m.st)}
		}
	}
	return nil
}

// flush sends the queued moves and checks that each was applied. A move
// that matched no row fails the flush with why (whyRefused), as a plain
// error, not a rejection: the moves after it in the batch have written.
func (g *groupTx) flush(ctx context.Context) error {
	if len(g.moves) == 0 {
		return nil
	}
	moves, batch := g.moves, g.batch
	g.moves, g.batch = nil, pgx.Batch{}
	if len(moves) > 1 && distinctGames(moves) {
		return g.applyMoves(ctx, moves)
	}
	br := g.Tx.SendBatch(ctx, &batch)
	var refused *queuedMove
	var err error
	for i := range moves {
		tag, e := br.Exec()
		if e != nil {
			err = e
			break
		}
		if tag.RowsAffected() == 0 && refused == nil {
			refused = &moves[i]
		}
	}
	if e := br.Close(); err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("queued moves: %w", err)
	}
	if refused != nil {
		return refusedMove{whyRefused(ctx, g.Tx, refused.id, refused.count, refused.st)}
	}
	return nil
}

// refusedMove is a flush's error when a queued move was refused: it is
// what whyRefused said (errors.Is sees store.ErrFenced and the others
// through it) but never a groupcommit rejection, even when why is one:
// the flush ran in another write's statement or in the commit, and that
// write must not pass for refused nor the group for clean.
type refusedMove struct{ why error }

func (e refusedMove) Error() string        { return "queued move refused: " + e.why.Error() }
func (e refusedMove) Is(target error) bool { return errors.Is(e.why, target) }

// Exec, Query and QueryRow, what the other writes use, send the queued
// moves first.

func (g *groupTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := g.flush(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return g.Tx.Exec(ctx, sql, args...)
}

func (g *groupTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := g.flush(ctx); err != nil {
		return nil, err
	}
	return g.Tx.Query(ctx, sql, args...)
}

func (g *groupTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := g.flush(ctx); err != nil {
		return errRow{err}
	}
	return g.Tx.QueryRow(ctx, sql, args...)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
