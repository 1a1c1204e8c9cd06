// Package groupcommit is the writer both stores put their writes
// through: one goroutine takes every pending write from all sessions,
// runs them in one transaction, commits once (one WAL flush for the whole
// group) and then acknowledges each. It knows nothing of SQL: a store
// gives it a way to begin, commit and roll back (Conn) and the writes as
// functions of the transaction, so SQLite's *sql.Tx and PostgreSQL's
// pgx.Tx share one loop, one retry rule and one set of tests.
//
// A write that fails after it may have written (an unexpected database
// error, not a Reject) would leave the shared transaction dirty, so the
// group is rolled back and its writes are run again one transaction each:
// one bad write never takes the others down with it. Savepoints per write
// would do the same, but cost two statements per move on the hot path.
package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// maxBatch bounds one group commit, so that the first writers in a long
// queue are acknowledged without waiting for the whole queue.
const maxBatch = 1024

// A group commit's cost is mostly fixed: with SQLite's synchronous=FULL a
// COMMIT (the WAL write and its fsync) costs several times a move's
// update, whatever it holds (store/sqlite's BenchmarkAppendMovePaced
// reports the CPU a move). Under load, groups form by themselves (the
// moves that come while one commits go in the next), but only a few
// moves each when commits are quick, and then most of a move's CPU is
// its share of a commit. So when moves are coming in fast, a writer with
// Config.Linger holds a small group back for a moment, until about
// lingerTarget moves are expected, but never so long that its oldest move
// has waited more than maxLinger since it was queued. When moves come
// slowly (fewer than one expected in that time), nothing waits.
const (
	lingerTarget = 16
	maxLinger    = 2 * time.Millisecond
)

// Conn is what a Writer needs of its database; T is its transaction.
type Conn[T any] interface {
	// Begin starts a group's transaction (retrying a busy lock is the
	// store's business).
	Begin(ctx context.Context) (T, error)
	// Commit commits it.
	Commit(ctx context.Context, tx T) error
	// Rollback abandons it.
	Rollback(tx T)
}

// Pipeliner is a Conn whose writes can queue their statements in the
// group's transaction and have them sent together, one round trip for
// many writes (PostgreSQL's pipeline): a group of writes that each waited
// for their own answer cost a round trip each, one after another, on the
// writer's single connection, and the round trips, not the database's
// work, set the writer's pace (see DoPipelined).
type Pipeliner[T any] interface {
	// Flush sends the statements queued in tx since the last Flush and
	// waits for all their answers; an error means the transaction is
	// spoilt. Begin starts with nothing queued.
	Flush(ctx context.Context, tx T) error
}

// FlushCommitter is a Pipeliner that can send COMMIT in the same round
// trip as the statements queued last: a group whose last writes are
// pipelined then costs one round trip fewer, and on a busy machine every
// round trip is a wake-up of the database's process and of the writer.
// Their checks then run after the COMMIT, so they must not use the
// transaction (a refused write asks why outside it), and may return an
// error only for a write that wrote nothing: the group has committed,
// and the error is that write's alone.
type FlushCommitter[T any] interface {
	// FlushCommit sends the statements queued in tx since the last Flush
	// and COMMIT, waits for all their answers and ends tx: nil means
	// committed. After an error, the Writer rolls tx back.
	FlushCommit(ctx context.Context, tx T) error
}

// Config is how a Writer runs.
type Config struct {
	Log *slog.Logger
	Obs store.Observer // nil: none
	// Linger holds small groups back while writes come in fast (see
	// lingerTarget): worth it where a commit costs an fsync of its own.
	Linger bool
	// GroupTimeout bounds one group's transaction (0: no bound): a
	// server that stops answering fails the group's writes instead of
	// holding their players forever.
	GroupTimeout time.Duration
	// Unavailable reports a failed group whose writes should all fail at
	// once, not be run again one by one (the database cannot be reached:
	// each would only wait for its own failure). nil: none is.
	Unavailable func(error) bool
	// RetryAlone runs a failed group of one write once more, as a group
	// of several is retried write by write (the SQLite store's rule; the
	// PostgreSQL store fails it at once).
	RetryAlone bool
	// Between, if set, runs on the writer's goroutine after each group
	// (SQLite's catch-up checkpoint).
	Between func()
}

// rejection marks an error a write returns before writing anything (a
// conflict, an ended game, a missing row): the group's transaction is
// still clean and the other writes in it go on.
type rejection struct{ err error }

func (r rejection) Error() string { return r.err.Error() }
func (r rejection) Unwrap() error { return r.err }

// Reject wraps err as a rejection; a write calls it only before its first
// statement that writes. Do returns the rejection, which unwraps to err.
func Reject(err error) error { return rejection{err} }

// A job is one caller's write: run executes inside the group's
// transaction, and done receives its outcome after COMMIT. A pipelined
// job (see DoPipelined) has queue instead of run.
//
// run is given the writer's context, not the caller's (ctx, checked
// before run starts): a caller giving up while its job runs must not
// interrupt a statement of the group's transaction (that fails the whole
// group, which is then retried job by job; pgx even closes the
// connection), and a context that can end costs a goroutine per statement
// in the SQLite driver.
type job[T any] struct {
	ctx    context.Context
	run    func(ctx context.Context, tx T, now int64) error
	queue  func(ctx context.Context, tx T, now int64) (check func(ctx context.Context) error)
	done   chan error
	queued time.Time
}

// Writer runs a store's writes in groups (see the package comment).
type Writer[T any] struct {
	conn Conn[T]
	pipe Pipeliner[T] // conn, if it pipelines
	// flushCommit is conn, if it pipelines COMMIT with the last writes.
	flushCommit FlushCommitter[T]
	cfg         Config

	// jobs keeps jobs, with their done channels, from one write to the
	// next: a move is a write, and each was two allocations more.
	jobs sync.Pool

	mu     sync.Mutex
	queue  []*job[T]
	closed bool
	wake   chan struct{} // capacity 1: "the queue may be non-empty"
	exited chan struct{}

	clock microClock // only touched by the loop goroutine

	// gap is the time between two queued jobs, averaged (guarded by mu,
	// with lastQueued).
	gap        time.Duration
	lastQueued time.Time

	commits atomic.Int64 // group commits so far
}

// New starts a writer on conn.
func New[T any](conn Conn[T], cfg Config) *Writer[T] {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Obs == nil {
		cfg.Obs = store.NopObserver{}
	}
	w := &Writer[T]{conn: conn, cfg: cfg, wake: make(chan struct{}, 1), exited: make(chan struct{})}
	w.pipe, _ = conn.(Pipeliner[T])
	if w.pipe != nil {
		w.flushCommit, _ = conn.(FlushCommitter[T])
	}
	w.jobs.New = func() any { return &job[T]{done: make(chan error, 1)} }
	go w.loop()
	return w
}

// Do queues fn and waits until its group has committed (nil) or fn or the
// commit failed (the error). Once queued, Do waits for the outcome even if
// ctx ends, so that a nil error always means "committed" and an error
// always means "not written"; a job whose ctx has ended before the writer
// reaches it is skipped with ctx's error. now is the write's time in unix
// microseconds, strictly increasing from one write to the next, so that
// "who got there first" is never a tie, even within a group.
func (w *Writer[T]) Do(ctx context.Context, fn func(ctx context.Context, tx T, now int64) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	queued := time.Now()
	j := w.newJob()
	j.ctx, j.run, j.queued = ctx, fn, queued
	err := w.submit(j)
	w.cfg.Obs.Waited(time.Since(queued))
	return err
}

// ErrNoPipeline refuses DoPipelined on a writer whose Conn is not a
// Pipeliner.
var ErrNoPipeline = errors.New("groupcommit: the connection does not pipeline")

// DoPipelined is Do for a write whose statements need no answer before
// the next write's are sent: queue adds them to tx (the Conn's way of
// queueing, without waiting) and returns check, which the writer calls
// once they have been sent and answered (Pipeliner.Flush, before the
// next write that is not pipelined and before COMMIT, or with COMMIT:
// FlushCommitter). check gives the write's outcome as Do's fn would
// (nil, a Reject, or an error that fails the group if it comes before
// COMMIT); it must not use tx, which may have committed. Consecutive
// pipelined writes of a group share one round trip.
func (w *Writer[T]) DoPipelined(ctx context.Context, queue func(ctx context.Context, tx T, now int64) (check func(ctx context.Context) error)) error {
	if w.pipe == nil {
		return ErrNoPipeline
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	queued := time.Now()
	j := w.newJob()
	j.ctx, j.queue, j.queued = ctx, queue, queued
	err := w.submit(j)
	w.cfg.Obs.Waited(time.Since(queued))
	return err
}

// Commits is the number of group commits so far.
func (w *Writer[T]) Commits() int64 { return w.commits.Load() }

// submit queues j, wakes the loop, waits for j's outcome and gives j back
// to the pool.
func (w *Writer[T]) submit(j *job[T]) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		w.release(j)
		return store.ErrClosed
	}
	w.queue = append(w.queue, j)
	if !w.lastQueued.IsZero() {
		w.gap += (j.queued.Sub(w.lastQueued) - w.gap) / 8
	}
	w.lastQueued = j.queued
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	err := <-j.done
	w.release(j) // the writer is done with j once it has sent
	return err
}

func (w *Writer[T]) newJob() *job[T] { return w.jobs.Get().(*job[T]) }

// release gives j back to the pool emptied, whatever became of it: a
// pooled job must not carry one caller's function or context to the next
// (store/sqlite's TestJobsFromClosedStoreStayEmpty).
func (w *Writer[T]) release(j *job[T]) {
	*j = job[T]{done: j.done}
	w.jobs.Put(j)
}

// Close stops new jobs, lets the loop commit what is queued and waits.
func (w *Writer[T]) Close() {
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

func (w *Writer[T]) loop() {
	defer close(w.exited)
	// batch keeps its array from one group to the next.
	var (
		batch  []*job[T]
		closed bool
		gap    time.Duration
	)
	for {
		batch, closed, gap = w.take(batch[:0])
		if len(batch) == 0 {
			if closed {
				return
			}
			<-w.wake
			continue
		}
		if !w.cfg.Linger {
			gap = 0
		}
		if wait := lingerFor(batch, gap, time.Now()); wait > 0 && !closed {
			time.Sleep(wait)
			batch, _, _ = w.take(batch)
		}
		w.commit(batch)
		clear(batch)
		if w.cfg.Between != nil {
			w.cfg.Between()
		}
	}
}

// take moves queued jobs into batch, up to maxBatch in it.
func (w *Writer[T]) take(batch []*job[T]) (_ []*job[T], closed bool, gap time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return takeFrom(&w.queue, batch), w.closed, w.gap
}

// takeFrom moves jobs from the front of *queue to the end of to, up to
// maxBatch in to.
func takeFrom[T any](queue *[]*job[T], to []*job[T]) []*job[T] {
	q := *queue
	n := min(len(q), maxBatch-len(to))
	to = append(to, q[:n]...)
	rest := copy(q, q[n:])
	clear(q[rest:])
	*queue = q[:rest]
	return to
}

// lingerFor is how long to hold batch back before committing it, when
// jobs come every gap (see lingerTarget): 0 unless at least one more is
// expected within the time its oldest job may still wait.
func lingerFor[T any](batch []*job[T], gap time.Duration, now time.Time) time.Duration {
	need := lingerTarget - len(batch)
	if need <= 0 || gap <= 0 {
		return 0
	}
	wait := min(time.Duration(need)*gap, batch[0].queued.Add(maxLinger).Sub(now))
	if wait < gap {
		return 0
	}
	return wait
}

// commit runs one group and acknowledges its jobs.
func (w *Writer[T]) commit(batch []*job[T]) {
	results := make([]error, len(batch))
	if err := w.group(batch, results); err != nil {
		unavailable := w.cfg.Unavailable != nil && w.cfg.Unavailable(err)
		if (len(batch) > 1 || w.cfg.RetryAlone) && !unavailable {
			if len(batch) > 1 {
				w.cfg.Log.Warn("db: group write failed, retrying its writes one by one", "writes", len(batch), "err", err)
			}
			for i, j := range batch {
				if err := w.group([]*job[T]{j}, results[i:i+1]); err != nil {
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

// group runs jobs in one transaction, storing each job's rejection (or
// ctx error) in results. It returns an error, having rolled back, if a
// job failed in a way that may have left writes behind, or if the
// transaction could not begin or commit; then no job was committed.
func (w *Writer[T]) group(batch []*job[T], results []error) error {
	ctx := context.Background() // the group outlives any one caller
	if w.cfg.GroupTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.cfg.GroupTimeout)
		defer cancel()
	}
	began := time.Now()
	tx, err := w.conn.Begin(ctx)
	if err != nil {
		w.cfg.Obs.Failed("begin")
		return err
	}
	// checks[i] is pipelined job i's check while its statements wait to
	// be sent (pending lists those jobs).
	var (
		checks  []func(context.Context) error
		pending []int
	)
	// flush sends the pending jobs' statements and takes their outcomes.
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		if err := w.pipe.Flush(ctx, tx); err != nil {
			return err
		}
		for _, i := range pending {
			err := checks[i](ctx)
			if err != nil && !errors.As(err, new(rejection)) {
				return err
			}
			results[i] = err
		}
		pending = pending[:0]
		return nil
	}
	failed := func(err error) error {
		w.conn.Rollback(tx)
		w.cfg.Obs.Failed("write")
		return err
	}
	for i, j := range batch {
		if err := j.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		now := w.clock.next(time.Now())
		if j.queue != nil {
			if checks == nil {
				checks = make([]func(context.Context) error, len(batch))
			}
			checks[i] = j.queue(ctx, tx, now)
			pending = append(pending, i)
			continue
		}
		if err := flush(); err != nil {
			return failed(err)
		}
		err := j.run(ctx, tx, now)
		if err != nil && !errors.As(err, new(rejection)) {
			return failed(err)
		}
		results[i] = err
	}
	// The last pipelined writes go with COMMIT where the connection can
	// send both at once; their checks then read the answers after it.
	var checkAfter []int
	if len(pending) > 0 && w.flushCommit != nil {
		if err = w.flushCommit.FlushCommit(ctx, tx); err != nil {
			w.conn.Rollback(tx)
		}
		checkAfter = pending
	} else {
		if err := flush(); err != nil {
			return failed(err)
		}
		err = w.conn.Commit(ctx, tx)
	}
	if err != nil {
		w.cfg.Log.Error("db: commit failed", "writes", len(batch), "err", err)
		w.cfg.Obs.Failed("commit")
		return fmt.Errorf("commit: %w", err)
	}
	for _, i := range checkAfter {
		results[i] = checks[i](ctx)
	}
	w.commits.Add(1)
	w.cfg.Obs.Committed(len(batch), time.Since(began))
	return nil
}

// microClock hands out strictly increasing unix-microsecond timestamps to
// the writer, so that "who got there first" is never a tie between two
// writes, even in the same group commit. Only the loop goroutine uses it.
type microClock struct{ last int64 }

func (c *microClock) next(now time.Time) int64 {
	us := now.UnixMicro()
	if us <= c.last {
		us = c.last + 1
	}
	c.last = us
	return us
}
