package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// fakeTx is a transaction of fakeDB: the writes it holds until Commit.
type fakeTx struct {
	writes []string
	queued []string // pipelined, not yet sent (pipeDB)
}

// fakeDB is a database whose transactions keep strings; a write of "bad"
// fails after writing, and commitErr fails every commit while set.
type fakeDB struct {
	mu        sync.Mutex
	rows      []string
	begins    int
	commitErr error
}

func (d *fakeDB) Begin(context.Context) (*fakeTx, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.begins++
	return &fakeTx{}, nil
}

func (d *fakeDB) Commit(_ context.Context, tx *fakeTx) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.commitErr != nil {
		return d.commitErr
	}
	d.rows = append(d.rows, tx.writes...)
	return nil
}

func (d *fakeDB) Rollback(*fakeTx) {}

func (d *fakeDB) committed() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.rows...)
}

func write(row string) func(context.Context, *fakeTx, int64) error {
	return func(_ context.Context, tx *fakeTx, _ int64) error {
		switch row {
		case "refused":
			return Reject(store.ErrConflict)
		case "bad":
			tx.writes = append(tx.writes, row)
			return errors.New("bad write")
		}
		tx.writes = append(tx.writes, row)
		return nil
	}
}

// TestGroupKeepsGoodWrites: many writes at once form groups; a rejected
// write and a write that fails after writing are refused, each alone,
// and every other write of their groups is committed once.
func TestGroupKeepsGoodWrites(t *testing.T) {
	for _, retryAlone := range []bool{false, true} {
		db := &fakeDB{}
		w := New[*fakeTx](db, Config{RetryAlone: retryAlone})
		const n = 200
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			row := fmt.Sprint(i)
			switch i {
			case 50:
				row = "refused"
			case 100:
				row = "bad"
			}
			wg.Go(func() { errs[i] = w.Do(context.Background(), write(row)) })
		}
		wg.Wait()
		w.Close()
		for i, err := range errs {
			switch {
			case i == 50 && !errors.Is(err, store.ErrConflict):
				t.Errorf("the rejected write: %v, want ErrConflict", err)
			case i == 100 && err == nil:
				t.Error("the failed write was acknowledged")
			case i != 50 && i != 100 && err != nil:
				t.Errorf("write %d: %v", i, err)
			}
		}
		rows := db.committed()
		seen := map[string]int{}
		for _, r := range rows {
			seen[r]++
		}
		if len(rows) != n-2 || seen["bad"] != 0 || seen["refused"] != 0 {
			t.Fatalf("committed %d rows (%d bad), want %d good ones once each", len(rows), seen["bad"], n-2)
		}
		for r, c := range seen {
			if c != 1 {
				t.Fatalf("row %s committed %d times", r, c)
			}
		}
	}
}

// TestUnavailableFailsTheGroupAtOnce: when the database cannot be
// reached, a group's writes all fail without being run again one by one.
func TestUnavailableFailsTheGroupAtOnce(t *testing.T) {
	down := errors.New("server went away")
	db := &fakeDB{commitErr: down}
	w := New[*fakeTx](db, Config{Unavailable: func(err error) bool { return errors.Is(err, down) }})
	defer w.Close()
	if err := w.Do(context.Background(), write("x")); !errors.Is(err, down) {
		t.Fatalf("write with the server down: %v", err)
	}
	db.mu.Lock()
	begins := db.begins
	db.mu.Unlock()
	if begins != 1 {
		t.Fatalf("%d transactions for one unreachable write, want 1", begins)
	}
}

// TestClosedWriterRefuses: after Close, writes are refused with
// store.ErrClosed; a cancelled context is refused before queueing.
func TestClosedWriterRefuses(t *testing.T) {
	db := &fakeDB{}
	w := New[*fakeTx](db, Config{})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Do(cancelled, write("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("write on a cancelled context: %v", err)
	}
	w.Close()
	w.Close() // twice is harmless
	if err := w.Do(context.Background(), write("x")); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("write after Close: %v", err)
	}
	if len(db.committed()) != 0 {
		t.Fatal("a refused write was committed")
	}
}

// TestTimesIncrease: every write gets a later time than the one before,
// even within one group.
func TestTimesIncrease(t *testing.T) {
	w := New[*fakeTx](&fakeDB{}, Config{})
	defer w.Close()
	var mu sync.Mutex
	var times []int64
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			w.Do(context.Background(), func(_ context.Context, _ *fakeTx, now int64) error {
				mu.Lock()
				times = append(times, now) // in the writer's order
				mu.Unlock()
				return nil
			})
		})
	}
	wg.Wait()
	for i := 1; i < len(times); i++ {
		if times[i] <= times[i-1] {
			t.Fatalf("write %d at %d, after %d", i, times[i], times[i-1])
		}
	}
}

// TestLingerFor: a group is held back only while moves come fast enough
// for another to be expected, never past maxLinger from its oldest move,
// and not at all once it holds lingerTarget.
func TestLingerFor(t *testing.T) {
	now := time.Now()
	group := func(n int, oldest time.Duration) []*job[struct{}] {
		b := make([]*job[struct{}], n)
		for i := range b {
			b[i] = &job[struct{}]{queued: now.Add(-oldest)}
		}
		return b
	}
	tests := []struct {
		name   string
		batch  []*job[struct{}]
		gap    time.Duration
		wantLo time.Duration
		wantHi time.Duration
	}{
		{"no rate yet", group(1, 0), 0, 0, 0},
		{"slow: one move per 10 ms", group(1, 0), 10 * time.Millisecond, 0, 0},
		{"slower than maxLinger", group(1, 0), maxLinger + time.Microsecond, 0, 0},
		{"fast: waits until lingerTarget moves are expected", group(1, 0), 100 * time.Microsecond,
			(lingerTarget - 1) * 100 * time.Microsecond, (lingerTarget - 1) * 100 * time.Microsecond},
		{"fast, but lingerTarget not expected within maxLinger", group(1, 0), maxLinger / 4, maxLinger, maxLinger},
		{"fast, nearly full: waits for the rest only", group(lingerTarget-2, 0), 100 * time.Microsecond, 200 * time.Microsecond, 200 * time.Microsecond},
		{"full", group(lingerTarget, 0), 10 * time.Microsecond, 0, 0},
		{"oldest already waited maxLinger", group(2, maxLinger), 10 * time.Microsecond, 0, 0},
		{"oldest waited half", group(2, maxLinger/2), maxLinger / 8, maxLinger / 2, maxLinger / 2},
	}
	for _, tt := range tests {
		if got := lingerFor(tt.batch, tt.gap, now); got < tt.wantLo || got > tt.wantHi {
			t.Errorf("%s: lingerFor = %v, want %v to %v", tt.name, got, tt.wantLo, tt.wantHi)
		}
	}
}

// pipeDB is a fakeDB whose transactions also queue writes (pipe) until
// Flush, as PostgreSQL's pipeline does: a queued "bad" spoils the flush.
type pipeDB struct {
	fakeDB
	flushes int
}

func (d *pipeDB) Flush(_ context.Context, tx *fakeTx) error {
	d.mu.Lock()
	d.flushes++
	d.mu.Unlock()
	q := tx.queued
	tx.queued = nil
	for _, row := range q {
		if row == "bad" {
			return errors.New("bad write in the pipeline")
		}
		tx.writes = append(tx.writes, row)
	}
	return nil
}

var errUnexplained = errors.New("refused for no known reason")

// queue is write for DoPipelined: the row waits in the pipeline, and its
// check refuses "refused" (nothing written) and sees the row sent.
func queue(row string) func(context.Context, *fakeTx, int64) func(context.Context) error {
	return func(_ context.Context, tx *fakeTx, _ int64) func(context.Context) error {
		if row != "refused" && row != "unexplained" {
			tx.queued = append(tx.queued, row)
		}
		return func(context.Context) error {
			switch row {
			case "refused":
				return Reject(store.ErrConflict)
			case "unexplained": // wrote nothing, and asking why failed
				return errUnexplained
			}
			if !slices.Contains(tx.writes, row) {
				return fmt.Errorf("row %s checked before it was sent", row)
			}
			return nil
		}
	}
}

// TestPipelinedWrites: pipelined writes mixed with plain ones, many at
// once: every good write is committed once, a refused one and one that
// spoils its pipeline are refused alone, and each check runs after its
// statements were sent. A writer whose connection cannot pipeline
// refuses DoPipelined.
func TestPipelinedWrites(t *testing.T) {
	db := &pipeDB{}
	w := New[*fakeTx](db, Config{})
	const n = 300
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		row := fmt.Sprint(i)
		switch i {
		case 70:
			row = "refused"
		case 150:
			row = "bad"
		}
		wg.Go(func() {
			if i%3 == 0 {
				errs[i] = w.Do(context.Background(), write(row))
			} else {
				errs[i] = w.DoPipelined(context.Background(), queue(row))
			}
		})
	}
	wg.Wait()
	w.Close()
	for i, err := range errs {
		switch {
		case i == 70 && !errors.Is(err, store.ErrConflict):
			t.Errorf("the refused write: %v, want ErrConflict", err)
		case i == 150 && err == nil:
			t.Error("the write that spoilt its pipeline was acknowledged")
		case i != 70 && i != 150 && err != nil:
			t.Errorf("write %d: %v", i, err)
		}
	}
	seen := map[string]int{}
	for _, r := range db.committed() {
		seen[r]++
	}
	if len(seen) != n-2 || seen["bad"] != 0 || seen["refused"] != 0 {
		t.Fatalf("committed %d distinct rows (%d bad), want the %d good ones", len(seen), seen["bad"], n-2)
	}
	for r, c := range seen {
		if c != 1 {
			t.Fatalf("row %s committed %d times", r, c)
		}
	}

	plain := New[*fakeTx](&fakeDB{}, Config{})
	defer plain.Close()
	if err := plain.DoPipelined(context.Background(), queue("x")); !errors.Is(err, ErrNoPipeline) {
		t.Fatalf("DoPipelined without a pipeline: %v", err)
	}
}

// TestPipelinedGroupIsOneRoundTrip: the pipelined writes that queue while
// a group commits form the next group and are sent in one flush.
func TestPipelinedGroupIsOneRoundTrip(t *testing.T) {
	db := &pipeDB{}
	w := New[*fakeTx](db, Config{})
	defer w.Close()
	gate, held := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // holds the writer in a group of its own
		w.Do(context.Background(), func(context.Context, *fakeTx, int64) error {
			close(held)
			<-gate
			return nil
		})
	})
	<-held
	const n = 200
	for i := range n {
		wg.Go(func() {
			if err := w.DoPipelined(context.Background(), queue(fmt.Sprint(i))); err != nil {
				t.Error(err)
			}
		})
	}
	for queued := 0; queued < n; { // all of them queued behind the gate
		runtime.Gosched()
		w.mu.Lock()
		queued = len(w.queue)
		w.mu.Unlock()
	}
	close(gate)
	wg.Wait()
	if len(db.committed()) != n || db.flushes != 1 {
		t.Fatalf("%d rows committed in %d flushes, want %d in 1", len(db.committed()), db.flushes, n)
	}
}

// commitPipeDB is a pipeDB that sends COMMIT with the last statements
// (FlushCommitter), as PostgreSQL's store does.
type commitPipeDB struct {
	pipeDB
	flushCommits, commits int
}

func (d *commitPipeDB) FlushCommit(ctx context.Context, tx *fakeTx) error {
	if err := d.Flush(ctx, tx); err != nil {
		return err
	}
	d.mu.Lock()
	d.flushCommits++
	d.mu.Unlock()
	return d.fakeDB.Commit(ctx, tx)
}

func (d *commitPipeDB) Commit(ctx context.Context, tx *fakeTx) error {
	d.mu.Lock()
	d.commits++
	d.mu.Unlock()
	return d.fakeDB.Commit(ctx, tx)
}

// TestLastPipelinedWritesCommitWithTheirFlush: a group that ends with
// pipelined writes commits with their flush (FlushCommitter), not with a
// COMMIT of its own; their checks run after it: a refused write and one
// whose check fails are refused alone, every other write of the group
// committed once. A group ending with a plain write commits as before,
// and a flush that fails takes nothing of its group with it.
func TestLastPipelinedWritesCommitWithTheirFlush(t *testing.T) {
	db := &commitPipeDB{}
	w := New[*fakeTx](db, Config{})
	defer w.Close()
	gate, held := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // holds the writer in a group of its own, which ends with a plain write
		w.Do(context.Background(), func(_ context.Context, tx *fakeTx, _ int64) error {
			close(held)
			<-gate
			tx.writes = append(tx.writes, "plain")
			return nil
		})
	})
	<-held
	const n = 100
	errs := make([]error, n)
	rows := make([]string, n)
	for i := range n {
		rows[i] = fmt.Sprint(i)
		switch i {
		case 10:
			rows[i] = "refused"
		case 20:
			rows[i] = "unexplained"
		}
		wg.Go(func() { errs[i] = w.DoPipelined(context.Background(), queue(rows[i])) })
	}
	for queued := 0; queued < n; { // all of them queued behind the gate
		runtime.Gosched()
		w.mu.Lock()
		queued = len(w.queue)
		w.mu.Unlock()
	}
	close(gate)
	wg.Wait()
	for i, err := range errs {
		switch {
		case i == 10 && !errors.Is(err, store.ErrConflict):
			t.Errorf("the refused write: %v, want ErrConflict", err)
		case i == 20 && !errors.Is(err, errUnexplained):
			t.Errorf("the write whose check failed: %v", err)
		case i != 10 && i != 20 && err != nil:
			t.Errorf("write %d: %v", i, err)
		}
	}
	if got := len(db.committed()); got != n-2+1 || db.flushCommits != 1 || db.commits != 1 {
		t.Fatalf("%d rows committed, %d flushes with COMMIT and %d COMMITs alone; want %d, 1 and 1 (the plain write's group)",
			got, db.flushCommits, db.commits, n-2+1)
	}

	// A bad write spoils its flush: nothing of that try is committed,
	// and the group's writes are run again one by one.
	errs = make([]error, 3)
	for i, row := range []string{"a", "bad", "b"} {
		wg.Go(func() { errs[i] = w.DoPipelined(context.Background(), queue(row)) })
	}
	wg.Wait()
	if errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Fatalf("a, bad, b: %v", errs)
	}
	seen := map[string]int{}
	for _, r := range db.committed() {
		seen[r]++
	}
	if seen["a"] != 1 || seen["b"] != 1 || seen["bad"] != 0 {
		t.Fatalf("committed a %d, b %d, bad %d times", seen["a"], seen["b"], seen["bad"])
	}
}
