package storetest

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store/internal/groupcommit"
)

// BenchmarkDurableFloor is BenchDurableWrites' paced load with no
// database: each move is a line appended to one file, grouped by the
// stores' writer (package groupcommit) and committed with an fdatasync.
//
//	go test ./store/storetest -run '^$' -bench DurableFloor -benchtime 100000x
//
// It runs two cases:
//   - bare: the line and its commit alone. Its p99 is the least commit
//     wait any store could have on this machine's disk under this load; a
//     store's paced p99 is to be read against it.
//   - store-cpu: each move also spins for about the CPU the SQLite store
//     spends on a move beyond the bare floor's, split as a profile of
//     DurableWrites/paced splits it: a little on the move's own goroutine,
//     the most in the writer, where it holds up the whole group. Its p99
//     is what that CPU alone costs the wait, with none of the store's
//     writes to the disk (docs/performance.md, Storage).
func BenchmarkDurableFloor(b *testing.B) {
	for _, bc := range []struct {
		name                string
		onSession, inWriter time.Duration
	}{
		{"bare", 0, 0},
		{"store-cpu", 2 * time.Microsecond, 9 * time.Microsecond},
	} {
		b.Run(bc.name, func(b *testing.B) { benchFloor(b, bc.onSession, bc.inWriter) })
	}
}

// benchFloor runs BenchmarkDurableFloor spinning for onSession on each
// move's goroutine before it is queued, and for inWriter in the writer
// as it takes the move into its group.
func benchFloor(b *testing.B, onSession, inWriter time.Duration) {
	f, err := os.Create(filepath.Join(b.TempDir(), "moves"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := groupcommit.New[*lines](appendFile{f}, groupcommit.Config{Linger: true})
	defer w.Close()
	move := []byte("game 123456 move 1234 0\n")
	commits0, cpu0 := w.Commits(), cpuTime(b)
	b.ResetTimer()
	waits := runSessions(b, DurableWriters, DurableWriters*time.Second/50_000, func(int, int, *rand.Rand) (time.Duration, error) {
		start := time.Now()
		spin(onSession)
		err := w.Do(context.Background(), func(_ context.Context, tx *lines, _ int64) error {
			spin(inWriter)
			tx.text = append(tx.text, move...)
			return nil
		})
		return time.Since(start), err
	})
	b.StopTimer()
	report(b, waits, w.Commits()-commits0, cpuTime(b)-cpu0)
}

// spin keeps its goroutine busy for d; for none, it does not read the
// clock, so that the bare floor pays nothing for it.
func spin(d time.Duration) {
	if d <= 0 {
		return
	}
	for start := time.Now(); time.Since(start) < d; {
	}
}

// appendFile is a groupcommit.Conn whose transactions append lines to f
// and commit with an fdatasync.
type appendFile struct{ f *os.File }

// lines is an appendFile's transaction: the text it will append.
type lines struct{ text []byte }

func (a appendFile) Begin(context.Context) (*lines, error) { return new(lines), nil }

func (a appendFile) Commit(_ context.Context, tx *lines) error {
	if _, err := a.f.Write(tx.text); err != nil {
		return err
	}
	return syscall.Fdatasync(int(a.f.Fd()))
}

func (a appendFile) Rollback(*lines) {}
