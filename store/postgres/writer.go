package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
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

// txConn gives groupcommit the writer pool's transactions.
type txConn struct{ pool *pgxpool.Pool }

func (c txConn) Begin(ctx context.Context) (pgx.Tx, error) {
	tx, err := c.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	return tx, nil
}

func (txConn) Commit(ctx context.Context, tx pgx.Tx) error { return tx.Commit(ctx) }

func (txConn) Rollback(tx pgx.Tx) { tx.Rollback(context.Background()) }
