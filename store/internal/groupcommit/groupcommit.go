package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/ssh2048/ssh2048/store"
)

// maxBatch bounds one group commit, so that the first writers in a long
// queue are acknowledged without waiting for the whole queue.
const maxBatch = 1024

// A job is one caller's write: run executes inside the group's
// transaction, and done receives its outcome after COMMIT. A read job
// (see writer.read) has look instead of run.
//
// run is given the writer's context, not the caller's (ctx, checked
// before run starts): a caller giving up while its job runs must not
// interrupt a statement of the group's transaction (that fails the whole
// group, which is then retried job by job), and a context that can end
// costs a goroutine per statement in the driver.
type job struct {
	ctx    context.Context
	run    func(ctx context.Context, tx *sql.Tx, now int64) error
	look   func(ctx context.Context, conn *sql.DB) error
	done   chan error
	queued time.Time
}

// A group commit's cost is mostly fixed: with synchronous=FULL a COMMIT
// takes about 150 µs of CPU (the WAL write and its fsync) whatever it
// holds, and a move inside it about 20 µs (measured on the development
// VM; BenchmarkAppendMovePaced reports it as cpu-µs/move). Under load,
// groups form by themselves (the moves that come while one commits go in
// the next), but only a few moves each when commits are quick: at 1,000
// players, 1.5 a commit, 120 µs of CPU a move. So when moves are coming in
// fast, the writer holds a small group back for a moment, until about
// lingerTarget moves are expected, but never so long that its oldest move
// has waited more than maxLinger since it was queued. When moves come
// slowly (fewer than one expected in that time), nothing waits.
const (
	lingerTarget = 16
	maxLinger    = 2 * time.Millisecond
)

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
	obs store.Observer

	mu     sync.Mutex
	queue  []*job
	reads  []*job // read jobs, run between groups (see read)
	closed bool
	wake   chan struct{} // capacity 1: "the queue may be non-empty"
	exited chan struct{}

	clock microClock // only touched by the loop goroutine

	// gap is the time between two queued jobs, averaged (guarded by mu,
	// with lastQueued).
	gap        time.Duration
	lastQueued time.Time

	commits atomic.Int64 // group commits so far

	// catchUp asks the loop for a checkpoint of its own after its next
	// group (see checkpointEvery).
	catchUp atomic.Bool
}

func newWriter(db *sql.DB, log *slog.Logger, obs store.Observer) *writer {
	w := &writer{db: db, log: log, obs: obs, wake: make(chan struct{}, 1), exited: make(chan struct{})}
	go w.loop()
	return w
}

// do queues fn and waits until its group has committed (nil) or fn or the
// commit failed (the error). Once queued, do waits for the outcome even if
// ctx ends, so that a nil error always means "committed" and an error
// always means "not written"; a job whose ctx has ended before the writer
// reaches it is skipped with ctx's error.
func (w *writer) do(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx, now int64) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	queued := time.Now()
	j := newJob()
	j.ctx, j.run, j.queued = ctx, fn, queued
	err := w.submit(j)
	w.obs.Waited(time.Since(queued))
	return err
}

// submit queues j, a write (run) or a read (look), wakes the loop, waits
// for j's outcome and gives j back to the pool.
func (w *writer) submit(j *job) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		release(j)
		return store.ErrClosed
	}
	if j.look != nil {
		w.reads = append(w.reads, j)
	} else {
		w.queue = append(w.queue, j)
		if !w.lastQueued.IsZero() {
			w.gap += (j.queued.Sub(w.lastQueued) - w.gap) / 8
		}
		w.lastQueued = j.queued
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	err := <-j.done
	release(j) // the writer is done with j once it has sent
	return err
}

// jobs keeps jobs, with their done channels, from one write to the next:
// a move is a write, and each was two allocations more.
var jobs = sync.Pool{New: func() any { return &job{done: make(chan error, 1)} }}

func newJob() *job { return jobs.Get().(*job) }

// release gives j back to the pool emptied, whatever became of it: a
// read's look left in a pooled job made the next write that took the job
// a read, acknowledged without running (TestJobsFromClosedStoreStayEmpty).
func release(j *job) {
	*j = job{done: j.done}
	jobs.Put(j)
}

// read runs fn on the writer's connection between two groups and returns
// its error. It is for the small reads every player makes every few
// seconds of the rows moves keep changing (the header's rank): a read
// connection starts each transaction after a commit with an empty page
// cache (SQLite drops it whole when the WAL has moved), so under load
// every such read on the pool fetched all its pages again, from the WAL
// or the file, and cost several times the query; the writer's cache
// holds the pages it has just written. Nothing else uses the connection
// while fn runs, so fn's statements see one state of the database without
// a transaction around them. A read waits at most for the group being
// committed when it is asked (see loop). fn must not write, and must be
// quick: the next group waits for it.
func (w *writer) read(ctx context.Context, fn func(ctx context.Context, conn *sql.DB) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j := newJob()
	j.ctx, j.look = ctx, fn
	return w.submit(j)
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
	// batch and reads keep their arrays from one group to the next.
	var (
		batch, reads []*job
		closed       bool
		gap          time.Duration
	)
	for {
		batch, reads, closed, gap = w.take(batch[:0], reads[:0])
		if len(batch) == 0 && len(reads) == 0 {
			if closed {
				return
			}
			<-w.wake
			continue
		}
		// Reads first, without waiting for the group: a read asked after
		// a write was acknowledged (a rank after its move) finds it
		// committed already.
		reads = w.runReads(reads)
		if len(batch) == 0 {
			continue
		}
		if wait := lingerFor(batch, gap, time.Now()); wait > 0 && !closed {
			time.Sleep(wait)
			batch, reads, _, _ = w.take(batch, reads)
		}
		w.commit(batch)
		clear(batch)
		reads = w.runReads(reads)
		if w.catchUp.Swap(false) {
			w.checkpoint()
		}
	}
}

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

// runReads runs read jobs on the writer's connection (see read) and
// returns reads emptied.
func (w *writer) runReads(reads []*job) []*job {
	for _, j := range reads {
		err := j.ctx.Err()
		if err == nil {
			err = j.look(context.Background(), w.db)
		}
		j.done <- err
	}
	clear(reads)
	return reads[:0]
}

// take moves queued jobs into batch and queued reads into reads, up to
// maxBatch in each.
func (w *writer) take(batch, reads []*job) (_, _ []*job, closed bool, gap time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return takeFrom(&w.queue, batch), takeFrom(&w.reads, reads), w.closed, w.gap
}

// takeFrom moves jobs from the front of *queue to the end of to, up to
// maxBatch in to.
func takeFrom(queue *[]*job, to []*job) []*job {
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
func lingerFor(batch []*job, gap time.Duration, now time.Time) time.Duration {
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
		err := j.run(ctx, tx, w.clock.next(time.Now()))
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
	w.commits.Add(1)
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
