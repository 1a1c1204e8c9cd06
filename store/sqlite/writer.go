package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/groupcommit"
)

// writer owns the only write connection and puts every write through
// package groupcommit: one IMMEDIATE transaction per group, one WAL sync
// for the whole group. Small groups linger while moves come in fast (a
// commit costs an fsync of its own). Reads never come here: they run on
// the read pool beside the writer, and ranks are kept in memory
// (ranks.go).
type writer struct {
	*groupcommit.Writer[*sql.Tx]
	db  *sql.DB
	log *slog.Logger
	obs store.Observer

	// catchUp asks the writer for a checkpoint of its own after its next
	// group (see checkpointEvery).
	catchUp atomic.Bool

	// mlog is the moves logged and not yet folded (movelog.go): each
	// transaction begins by folding those that are due, and its changes
	// to mlog are kept or undone as it commits or rolls back.
	mlog *moveLog
}

// newWriter starts the writer; between, if set, runs on its goroutine
// after each group too, with the connection free.
func newWriter(db *sql.DB, mlog *moveLog, log *slog.Logger, obs store.Observer, between func()) *writer {
	w := &writer{db: db, mlog: mlog, log: log, obs: obs}
	w.Writer = groupcommit.New[*sql.Tx](txConn{w}, groupcommit.Config{
		Log: log, Obs: obs, Linger: true, RetryAlone: true,
		Between: func() {
			if w.catchUp.Swap(false) {
				w.checkpoint()
			}
			if between != nil {
				between()
			}
		},
	})
	return w
}

// reject marks err as refusing a write before it wrote anything
// (groupcommit.Reject): the other writes of its group go on.
func reject(err error) error { return groupcommit.Reject(err) }

// do queues fn and waits for its group's commit (groupcommit.Writer.Do).
func (w *writer) do(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx, now int64) error) error {
	return w.Do(ctx, fn)
}

func (w *writer) close() { w.Close() }

// checkpoint copies what is left of the WAL into the database, on the
// writer's connection between two groups: with nothing written meanwhile
// it copies everything (unless a reader still needs old frames), and the
// next group then writes the WAL from its beginning again. The background
// checkpoint has copied most of it already; this is the frames of the
// last few groups, and an fsync of the database file.
func (w *writer) checkpoint() {
	if _, err := checkpoint(w.db); err != nil {
		w.log.Warn("db: the writer's checkpoint failed", "err", err)
		w.obs.Failed("checkpoint")
	}
}

// txConn gives groupcommit the write connection's transactions.
type txConn struct{ w *writer }

// Begin starts the IMMEDIATE transaction (see dsn). busy_timeout already
// waits for another process holding the write lock (a backup, the sqlite3
// shell); if that is not enough, retry for a while rather than hand
// "database is locked" to a player.
func (c txConn) Begin(ctx context.Context) (*sql.Tx, error) {
	tx, err := c.begin(ctx)
	if err != nil {
		return nil, err
	}
	c.w.mlog.begin()
	if err := c.w.mlog.foldDue(ctx, tx, time.Now().UnixMicro()); err != nil {
		c.Rollback(tx)
		return nil, err
	}
	return tx, nil
}

func (c txConn) begin(ctx context.Context) (*sql.Tx, error) {
	for attempt := 1; ; attempt++ {
		tx, err := c.w.db.BeginTx(ctx, nil)
		if err == nil {
			return tx, nil
		}
		var se sqlite3.Error
		if !errors.As(err, &se) || se.Code != sqlite3.ErrBusy || attempt == 5 {
			return nil, fmt.Errorf("begin: %w", err)
		}
		c.w.log.Warn("db: write lock busy, retrying", "attempt", attempt, "err", err)
		time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
	}
}

func (c txConn) Commit(_ context.Context, tx *sql.Tx) error {
	if err := tx.Commit(); err != nil {
		c.w.mlog.rollback()
		return err
	}
	c.w.mlog.commit()
	return nil
}

func (c txConn) Rollback(tx *sql.Tx) {
	tx.Rollback()
	c.w.mlog.rollback()
}
