package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// maxBatch bounds one group commit, so that the first writers in a long
// queue are acknowledged without waiting for the whole queue.
const maxBatch = 1024

// A job is one caller's write: run executes inside the group's
// transaction, and done receives its outcome after COMMIT.
type job struct {
	ctx  context.Context
	run  func(tx *sql.Tx, now int64) error
	done chan error
}

// rejection marks an error a job returns before writing anything (a
// conflict, an ended game, a missing row): the group's transaction is
// still clean and the other jobs in it go on.
type rejection struct{ err error }

func (r rejection) Error() string { return r.err.Error() }
func (r rejection) Unwrap() error { return r.err }

// reject wraps err as a rejection; jobs call it only before their first write.
func reject(err error) error { return rejection{err} }

// writer owns the only write connection. One goroutine takes every pending
// job from all sessions, runs them in one IMMEDIATE transaction, commits
// once (one WAL sync for the whole group) and then acknowledges each job.
//
// A job that fails after it may have written (an unexpected SQL error,
// not a rejection) would leave the shared transaction dirty, so the group
// is rolled back and its jobs are run again one transaction each: one bad
// write never takes the others down with it. Savepoints per job would do
// the same, but cost two statements per move on the hot path.
type writer struct {
	db  *sql.DB
	log *slog.Logger
	obs Observer

	mu     sync.Mutex
	queue  []*job
	closed bool
	wake   chan struct{} // capacity 1: "the queue may be non-empty"
	exited chan struct{}

	clock microClock // only touched by the loop goroutine
}

func newWriter(db *sql.DB, log *slog.Logger, obs Observer) *writer {
	w := &writer{db: db, log: log, obs: obs, wake: make(chan struct{}, 1), exited: make(chan struct{})}
	go w.loop()
	return w
}

// do queues fn and waits until its group has committed (nil) or fn or the
// commit failed (the error). Once queued, do waits for the outcome even if
// ctx ends, so that a nil error always means "committed" and an error
// always means "not written"; a job whose ctx has ended before the writer
// reaches it is skipped with ctx's error.
func (w *writer) do(ctx context.Context, fn func(tx *sql.Tx, now int64) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	queued := time.Now()
	j := &job{ctx: ctx, run: fn, done: make(chan error, 1)}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	w.queue = append(w.queue, j)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	err := <-j.done
	w.obs.Waited(time.Since(queued))
	return err
}

// close stops new jobs, lets the loop commit what is queued and waits.
func (w *writer) close() {
	w.mu.Lock()
	already := w.closed
	w.closed = true
	w.mu.Unlock()
	if !already {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	<-w.exited
}

func (w *writer) loop() {
	defer close(w.exited)
	var batch []*job
	for {
		w.mu.Lock()
		n := min(len(w.queue), maxBatch)
		batch = append(batch[:0], w.queue[:n]...)
		rest := copy(w.queue, w.queue[n:])
		clear(w.queue[rest:])
		w.queue = w.queue[:rest]
		closed := w.closed
		w.mu.Unlock()
		if len(batch) == 0 {
			if closed {
				return
			}
			<-w.wake
			continue
		}
		w.commit(batch)
		clear(batch)
	}
}

// commit runs one group and acknowledges its jobs.
func (w *writer) commit(batch []*job) {
	results := make([]error, len(batch))
	if err := w.group(batch, results); err != nil {
		if len(batch) > 1 {
			w.log.Warn("db: group write failed, retrying its writes one by one", "writes", len(batch), "err", err)
		}
		for i, j := range batch {
			if err := w.group([]*job{j}, results[i:i+1]); err != nil {
				results[i] = err
			}
		}
	}
	for i, j := range batch {
		j.done <- results[i]
	}
}

// group runs jobs in one transaction, storing each job's rejection (or
// ctx error) in results. It returns an error, having rolled back, if a
// job failed in a way that may have left writes behind, or if the
// transaction could not begin or commit; then no job was committed.
func (w *writer) group(batch []*job, results []error) error {
	ctx := context.Background() // the group outlives any one caller
	began := time.Now()
	tx, err := w.begin(ctx)
	if err != nil {
		w.obs.Failed("begin")
		return err
	}
	for i, j := range batch {
		if err := j.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		err := j.run(tx, w.clock.next(time.Now()))
		var r rejection
		if err != nil && !errors.As(err, &r) {
			tx.Rollback()
			w.obs.Failed("write")
			return err
		}
		results[i] = err
	}
	if err := tx.Commit(); err != nil {
		w.log.Error("db: commit failed", "writes", len(batch), "err", err)
		w.obs.Failed("commit")
		return fmt.Errorf("commit: %w", err)
	}
	w.obs.Committed(len(batch), time.Since(began))
	return nil
}

// begin starts the IMMEDIATE transaction (see dsn). busy_timeout already
// waits for another process holding the write lock (a backup, the sqlite3
// shell); if that is not enough, retry for a while rather than hand
// "database is locked" to a player.
func (w *writer) begin(ctx context.Context) (*sql.Tx, error) {
	for attempt := 1; ; attempt++ {
		tx, err := w.db.BeginTx(ctx, nil)
		if err == nil {
			return tx, nil
		}
		var se sqlite3.Error
		if !errors.As(err, &se) || se.Code != sqlite3.ErrBusy || attempt == 5 {
			return nil, fmt.Errorf("begin: %w", err)
		}
		w.log.Warn("db: write lock busy, retrying", "attempt", attempt, "err", err)
		time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
	}
}
