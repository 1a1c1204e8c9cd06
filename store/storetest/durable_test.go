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
// Its p99 is the least commit wait any store could have on this machine's
// disk under this load; a store's paced p99 is to be read against it.
//
//	go test ./store/storetest -run '^$' -bench DurableFloor -benchtime 100000x
func BenchmarkDurableFloor(b *testing.B) {
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
		err := w.Do(context.Background(), func(_ context.Context, tx *lines, _ int64) error {
			tx.text = append(tx.text, move...)
			return nil
		})
		return time.Since(start), err
	})
	b.StopTimer()
	report(b, waits, w.Commits()-commits0, cpuTime(b)-cpu0)
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
