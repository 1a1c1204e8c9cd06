package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// TestFailedWriteDoesNotSinkItsGroup: jobs that fail after writing are
// undone, alone; the jobs committed with them in a group stay.
func TestFailedWriteDoesNotSinkItsGroup(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	boom := errors.New("boom")
	const n = 60
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
				_, err := tx.Exec(`INSERT INTO players (fingerprint, key_type, name, first_seen, last_seen) VALUES (?, 'k', 'n', ?, ?)`,
					fmt.Sprintf("fp-%d", i), now, now)
				if err != nil {
					return err
				}
				if i%3 == 0 {
					return boom // after a write: the group must not keep it
				}
				if i%3 == 1 {
					return reject(store.ErrConflict) // a rejection writes nothing by contract; this one did, on purpose
				}
				return nil
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		var want error
		switch i % 3 {
		case 0:
			want = boom
		case 1:
			want = store.ErrConflict
		}
		if !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("job %d: err = %v, want %v", i, err, want)
		}
		var stored int
		if err := s.read.QueryRow(`SELECT count(*) FROM players WHERE fingerprint = ?`, fmt.Sprintf("fp-%d", i)).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 && stored != 0 {
			t.Errorf("job %d failed after writing, yet its write was committed", i)
		}
		if i%3 == 2 && stored != 1 {
			t.Errorf("job %d succeeded, yet its write is missing", i)
		}
	}
}

// TestWALStartsOverUnderContinuousWrites: with moves committed back to
// back and no pause for the checkpoint to catch up, the WAL still starts
// again from its beginning. (It never did while moves kept coming, and
// grew as long as they did: 373 MB in 8 s at 2,000 players, see
// checkpointEvery.) Each start over writes a new WAL header with its
// checkpoint sequence number one higher.
func TestWALStartsOverUnderContinuousWrites(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, WithDurability(CrashSafe)) // as many commits as the machine can make
	const writers = 16
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var moves atomic.Int64
	for i := range writers {
		p := addPlayer(t, s, fmt.Sprintf("w%d", i))
		g, err := s.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for {
				select {
				case <-stop:
					return
				default:
				}
				var err error
				if g, _, err = timedMove(ctx, s, g, rng); err != nil {
					t.Error(err)
					return
				}
				moves.Add(1)
			}
		}()
	}
	// The WAL header: magic, format, page size, then the checkpoint
	// sequence number, big-endian (sqlite.org/fileformat.html#walformat).
	sequence := func() uint32 {
		h := make([]byte, 16)
		f, err := os.Open(s.Path() + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := io.ReadFull(f, h); err != nil {
			t.Fatal(err)
		}
		return binary.BigEndian.Uint32(h[12:])
	}
	time.Sleep(500 * time.Millisecond)
	early, movesEarly := sequence(), moves.Load()
	time.Sleep(2 * time.Second) // ten background checkpoints
	late, movesLate := sequence(), moves.Load()
	close(stop)
	wg.Wait()
	if movesLate == movesEarly {
		t.Fatal("no move was made: nothing to tell")
	}
	if late == early {
		t.Errorf("the WAL did not start over in 2 s of writes (%d moves; checkpoint sequence %d)", movesLate-movesEarly, late)
	}
}

// TestJobsFromClosedStoreStayEmpty: writes refused by a closed store
// leave nothing behind in the jobs they give back to the pool, from which
// another store's writes take theirs. (A read's function left in one, when
// the writer also ran reads, turned the next write into a read,
// acknowledged as committed without ever running.)
func TestJobsFromClosedStoreStayEmpty(t *testing.T) {
	ctx := context.Background()
	closed := openStore(t)
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	for range 100 { // sync.Pool keeps them per P: enough to meet one again
		if err := closed.w.do(ctx, func(context.Context, *sql.Tx, int64) error { return nil }); !errors.Is(err, store.ErrClosed) {
			t.Fatalf("write after Close: %v, want store.ErrClosed", err)
		}
	}
	s := openStore(t)
	for i := range 100 {
		p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:pooled-%d", i), "ssh-ed25519", "pooled")
		if err != nil || p.ID == 0 {
			t.Fatalf("UpsertPlayer %d after a closed store's jobs: %+v, %v", i, p, err)
		}
	}
}
