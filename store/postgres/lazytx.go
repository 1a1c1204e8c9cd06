package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// lazyTx is the writer's transaction, begun by its first statement
// rather than by a BEGIN of its own: a group of moves sends BEGIN in
// the same round trip as the moves (SendBatch), and its COMMIT with
// them too where moves end the group (txConn.FlushCommit): one round
// trip instead of three. Every round trip
// on the writer's one connection is time the next group waits, and on a
// busy machine each is a wake-up of PostgreSQL's backend and of the node.
// A first statement sent alone by Exec or QueryRow takes BEGIN along in
// the same way (a login's writes start so); Query still sends BEGIN on
// its own, as pgx's transactions do.
//
// It holds the writer pool's connection from Begin to Commit or
// Rollback, which release it; pgxpool closes, rather than reuses, a
// connection released inside a transaction.
type lazyTx struct {
	conn  *pgxpool.Conn
	begun bool
	done  bool
}

var _ pgx.Tx = (*lazyTx)(nil)

// errNested refuses what the writer's transactions never do.
var errNested = errors.New("postgres: the writer's transaction has no nested transactions, copies or large objects")

func beginLazy(ctx context.Context, pool *pgxpool.Pool) (*lazyTx, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &lazyTx{conn: conn}, nil
}

// begin sends BEGIN on its own, if nothing has yet.
func (tx *lazyTx) begin(ctx context.Context) error {
	if tx.done {
		return pgx.ErrTxClosed
	}
	if tx.begun {
		return nil
	}
	tx.begun = true
	if _, err := tx.conn.Exec(ctx, "begin"); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	return nil
}

func (tx *lazyTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if tx.done {
		return pgconn.CommandTag{}, pgx.ErrTxClosed
	}
	if tx.begun {
		return tx.conn.Exec(ctx, sql, args...)
	}
	br := tx.SendBatch(ctx, statement(sql, args))
	tag, err := br.Exec()
	if err != nil {
		err = fmt.Errorf("begin: %w", err)
	} else {
		tag, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

func (tx *lazyTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := tx.begin(ctx); err != nil {
		return nil, err
	}
	return tx.conn.Query(ctx, sql, args...)
}

func (tx *lazyTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if tx.done {
		return errRow{pgx.ErrTxClosed}
	}
	if tx.begun {
		return tx.conn.QueryRow(ctx, sql, args...)
	}
	br := tx.SendBatch(ctx, statement(sql, args))
	if _, err := br.Exec(); err != nil {
		br.Close()
		return errRow{fmt.Errorf("begin: %w", err)}
	}
	return batchRow{br}
}

// statement is a batch of one statement.
func statement(sql string, args []any) *pgx.Batch {
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	return b
}

// batchRow is the row of a batch's last statement: scanning it closes
// the batch, which frees the connection for the next statement.
type batchRow struct{ br pgx.BatchResults }

func (r batchRow) Scan(dest ...any) error {
	err := r.br.QueryRow().Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

// SendBatch sends b, led by BEGIN if the transaction has not begun: one
// round trip for both.
func (tx *lazyTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if tx.done {
		return errBatch{err: pgx.ErrTxClosed}
	}
	if !tx.begun {
		tx.begun = true
		led := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, b.Len()+1)}
		led.Queue("begin")
		led.QueuedQueries = append(led.QueuedQueries, b.QueuedQueries...)
		b = led
	}
	return tx.conn.SendBatch(ctx, b)
}

// Commit commits what was sent (nothing to do if nothing was) and
// releases the connection; a transaction that failed is reported as
// pgx's does, pgx.ErrTxCommitRollback.
func (tx *lazyTx) Commit(ctx context.Context) error {
	if tx.done {
		return pgx.ErrTxClosed
	}
	tx.done = true
	defer tx.conn.Release()
	if !tx.begun {
		return nil
	}
	tag, err := tx.conn.Exec(ctx, "commit")
	if err != nil {
		return err
	}
	if tag.String() == "ROLLBACK" {
		return pgx.ErrTxCommitRollback
	}
	return nil
}

// committed ends a transaction whose COMMIT went with its last
// statements (txConn.FlushCommit), releasing the connection.
func (tx *lazyTx) committed() error {
	if tx.done {
		return pgx.ErrTxClosed
	}
	tx.done = true
	tx.conn.Release()
	return nil
}

// Rollback abandons the transaction and releases the connection.
func (tx *lazyTx) Rollback(ctx context.Context) error {
	if tx.done {
		return pgx.ErrTxClosed
	}
	tx.done = true
	defer tx.conn.Release()
	if !tx.begun {
		return nil
	}
	_, err := tx.conn.Exec(ctx, "rollback")
	return err
}

func (tx *lazyTx) Begin(context.Context) (pgx.Tx, error) { return nil, errNested }

func (tx *lazyTx) CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error) {
	return 0, errNested
}

func (tx *lazyTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

func (tx *lazyTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return tx.conn.Conn().Prepare(ctx, name, sql)
}

func (tx *lazyTx) Conn() *pgx.Conn { return tx.conn.Conn() }

// errRow is a row whose query could not be sent.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// errBatch is a batch that could not be sent (the interface, embedded
// nil, only for methods the writer never calls).
type errBatch struct {
	pgx.BatchResults
	err error
}

func (b errBatch) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, b.err }
func (b errBatch) Query() (pgx.Rows, error)         { return nil, b.err }
func (b errBatch) QueryRow() pgx.Row                { return errRow{b.err} }
func (b errBatch) Close() error                     { return b.err }
