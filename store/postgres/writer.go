package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ssh2048/ssh2048/store"
)

// maxBatch bounds one group commit, as in package sqlite.
const maxBatch = 1024

// groupTimeout bounds one group's transaction: a server that stops
// answering fails the group's writes instead of holding their players
// forever.
const groupTimeout = 10 * time.Second

// A job is one caller's write: run executes inside the group's
// transaction, and done receives its outcome after COMMIT.
type job struct {
	ctx  context.Context
	run  func(ctx context.Context, tx pgx.Tx, now int64) error
	done chan error
}

// rejection marks an error a job returns before writing anything: the
// group's transaction is still clean and its other jobs go on.
type rejection struct{ err error }

func (r rejection) Error() string { return r.err.Error() }
func (r rejection) Unwrap() error { return r.err }

func reject(err error) error { return rejection{err} }

// writer is package sqlite's group-commit writer over a pgx pool: one
// goroutine takes every pending job, runs them in one transaction and
// commits once. A job's statements run on the group's context, never the
// caller's: cancelling a query mid-flight makes pgx close the connection,
// which would take the whole group down with it.
type writer struct {
	pool *pgxpool.Pool
	log  *slog.Logger
	obs  store.Observer

	mu     sync.Mutex
	queue  []*job
	closed bool
	wake   chan struct{}
	exited chan struct{}

	clock microClock
}

func newWriter(pool *pgxpool.Pool, log *slog.Logger, obs store.Observer) *writer {
	w := &writer{pool: pool, log: log, obs: obs, wake: make(chan struct{}, 1), exited: make(chan struct{})}
	go w.loop()
	return w
}

// do queues fn and waits until its group has committed (nil) or fn or the
// commit failed (the error). Once queued, do waits for the outcome even if
// ctx ends, so that nil always means committed.
func (w *writer) do(ctx context.Context, fn func(ctx context.Context, tx pgx.Tx, now int64) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	queued := time.Now()
	j := &job{ctx: ctx, run: fn, done: make(chan error, 1)}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return store.ErrClosed
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

// commit runs one group and acknowledges its jobs. When the group fails
// because the server is unreachable, its jobs fail at once: running them
// again one by one would only make each player wait for its own failure.
func (w *writer) commit(batch []*job) {
	results := make([]error, len(batch))
	if err := w.group(batch, results); err != nil {
		if len(batch) > 1 && !isUnavailable(err) {
			w.log.Warn("db: group write failed, retrying its writes one by one", "writes", len(batch), "err", err)
			for i, j := range batch {
				if err := w.group([]*job{j}, results[i:i+1]); err != nil {
					results[i] = err
				}
			}
		} else {
			for i := range results {
				results[i] = err
			}
		}
	}
	for i, j := range batch {
		j.done <- results[i]
	}
}

// group runs jobs in one transaction; see package sqlite's writer.group.
func (w *writer) group(batch []*job, results []error) error {
	ctx, cancel := context.WithTimeout(context.Background(), groupTimeout)
	defer cancel()
	began := time.Now()
	tx, err := w.pool.Begin(ctx)
	if err != nil {
		w.obs.Failed("begin")
		return fmt.Errorf("begin: %w", err)
	}
	for i, j := range batch {
		if err := j.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		err := j.run(ctx, tx, w.clock.next(time.Now()))
		var r rejection
		if err != nil && !errors.As(err, &r) {
			tx.Rollback(context.Background())
			w.obs.Failed("write")
			return err
		}
		results[i] = err
	}
	if err := tx.Commit(ctx); err != nil {
		w.log.Error("db: commit failed", "writes", len(batch), "err", err)
		w.obs.Failed("commit")
		return fmt.Errorf("commit: %w", err)
	}
	w.obs.Committed(len(batch), time.Since(began))
	return nil
}
