package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFileModes: the database and its WAL files are created 0600 whatever
// the umask, and a database an older version left 0644 is tightened.
func TestFileModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	addPlayer(t, s, "ann") // a write: the WAL exists
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s: mode %o, want 600", name, perm)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Open(context.Background(), dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("reopened: mode %o, want 600", fi.Mode().Perm())
	}
}

// damagedStore makes a database with some players, closes it, and writes
// garbage over the page type of its last page (a b-tree page of a table
// or an index: the file has no free pages).
func damagedStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		addPlayer(t, s, "player"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	if err := s.Check(context.Background(), true); err != nil {
		t.Fatalf("check before the damage: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	const pageSize = 4096
	if fi.Size()%pageSize != 0 || fi.Size() < 4*pageSize {
		t.Fatalf("database of %d bytes", fi.Size())
	}
	if _, err := f.WriteAt([]byte{0xff, 0xff, 0xff, 0xff}, fi.Size()-pageSize); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCheck: a damaged page is found by Check (quick and full) and by
// CheckFile, as ErrCorrupt with SQLite's words; a sound database passes;
// a check that runs out of time says so, not that the file is damaged.
func TestCheck(t *testing.T) {
	dir := damagedStore(t)
	s, err := Open(context.Background(), dir, WithLogger(quiet))
	if err != nil {
		t.Fatalf("open: %v", err) // the damage is not on a page Open reads
	}
	defer s.Close()
	for _, full := range []bool{false, true} {
		err := s.Check(context.Background(), full)
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("Check(full=%v) = %v, want ErrCorrupt", full, err)
		}
		if err := CheckFile(context.Background(), filepath.Join(dir, FileName), full); !errors.Is(err, ErrCorrupt) {
			t.Errorf("CheckFile(full=%v) = %v, want ErrCorrupt", full, err)
		}
	}
	t.Logf("what a damaged page looks like: %v", s.Check(context.Background(), false))

	sound := openStore(t)
	addPlayer(t, sound, "ann")
	if err := sound.Check(context.Background(), false); err != nil {
		t.Errorf("sound database: %v", err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if err := sound.Check(ctx, true); errors.Is(err, ErrCorrupt) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("out of time: %v", err)
	}
	if err := CheckFile(context.Background(), filepath.Join(t.TempDir(), FileName), false); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no database: %v", err)
	}
}
