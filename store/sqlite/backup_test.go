package sqlite

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ssh2048/ssh2048/store"
)

// TestBackupUnderWrites backs the database up while players commit moves:
// the copy passes the integrity check, opens as a store, and is one
// moment of the database: every game's stored move count matches the
// moves stored with it (a copy of the files taken page by page while the
// writer runs would not promise that), and it is a fresh database with no
// WAL beside it.
func TestBackupUnderWrites(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var committed atomic.Int64
	for i := range 4 {
		p := addPlayer(t, s, "writer"+string(rune('a'+i)))
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			g, err := s.NewGame(ctx, p.ID, 4, store.KindBot)
			if err != nil {
				t.Error(err)
				return
			}
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := playMove(ctx, s, g, rng); err != nil {
					if g, err = s.NewGame(ctx, p.ID, 4, store.KindBot); err != nil { // over: the next game
						t.Error(err)
						return
					}
					continue
				}
				committed.Add(1)
			}
		})
	}
	for committed.Load() < 200 {
		runtime.Gosched()
	}
	dest := filepath.Join(t.TempDir(), "copy", FileName)
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		t.Fatal(err)
	}
	info, err := Backup(ctx, s.Path(), dest)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("Backup: %v", err)
	}
	if info.Moves < 200 || info.Games < 4 || info.Players < 4 {
		t.Errorf("backup of %+v after 200 moves were committed", info)
	}
	for _, companion := range []string{"-wal", "-shm", ".partial"} {
		if _, err := os.Stat(dest + companion); err == nil {
			t.Errorf("%s is left beside the copy", filepath.Base(dest+companion))
		}
	}

	c, err := Open(ctx, filepath.Dir(dest), WithLogger(quiet))
	if err != nil {
		t.Fatalf("open the copy: %v", err)
	}
	defer c.Close()
	var games, mismatched, moves int64
	if err := c.read.QueryRowContext(ctx, `
		SELECT count(*), coalesce(sum(g.moves <> `+foldedMoves+`), 0),
		       coalesce(sum(g.moves), 0)
		FROM games g`).Scan(&games, &mismatched, &moves); err != nil {
		t.Fatal(err)
	}
	if games != info.Games || moves != info.Moves || mismatched != 0 {
		t.Errorf("the copy holds %d games, %d moves, %d games whose move count disagrees with their moves; Backup said %+v",
			games, moves, mismatched, info)
	}

	if _, err := Backup(ctx, s.Path(), dest); !errors.Is(err, ErrBackupExists) {
		t.Errorf("a second backup onto the copy: %v, want ErrBackupExists", err)
	}
	if _, err := Backup(ctx, filepath.Join(t.TempDir(), "none.db"), dest+"2"); err == nil {
		t.Error("a backup of a missing database succeeded")
	}
}
