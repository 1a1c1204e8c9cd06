package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
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
			errs[i] = s.w.do(ctx, func(tx *sql.Tx, now int64) error {
				_, err := tx.Exec(`INSERT INTO players (fingerprint, key_type, name, first_seen, last_seen) VALUES (?, 'k', 'n', ?, ?)`,
					fmt.Sprintf("fp-%d", i), now, now)
				if err != nil {
					return err
				}
				if i%3 == 0 {
					return boom // after a write: the group must not keep it
				}
				if i%3 == 1 {
					return reject(ErrConflict) // a rejection writes nothing by contract; this one did, on purpose
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
			want = ErrConflict
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
