package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/load"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// TestBackupUnderLoad: `ssh2048 backup` runs as a process of its own while
// bot players commit moves on the real server; the copy is restored into a
// fresh data directory, every game in it replays from its seed and moves
// to its stored score, tile, win and board, and the server starts from it
// with the same host key.
func TestBackupUnderLoad(t *testing.T) {
	bin := buildBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	srv := startProcess(t, bin, data, "SSH2048_CONN_RATE_PER_IP=0", "SSH2048_MAX_UNAUTH_PER_IP=0")

	cfg := load.DefaultConfig()
	cfg.Addr = srv.addr
	cfg.Mode = load.ModeBot
	cfg.Sessions = 16
	cfg.Rate = 25
	cfg.Duration = 5 * time.Second
	cfg.Verify = false
	done := make(chan error, 1)
	go func() {
		_, err := load.Run(context.Background(), cfg)
		done <- err
	}()
	time.Sleep(3 * time.Second) // the players are connected and moving

	restored := filepath.Join(t.TempDir(), "restored")
	out, err := exec.Command(bin, "backup", "--data", data, restored).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh2048 backup: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "integrity ok") {
		t.Errorf("backup said %q", out)
	}
	if err := <-done; err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := exec.Command(bin, "backup", "--data", data, restored).Run(); err == nil {
		t.Error("a backup into a directory that is not empty succeeded")
	}

	// The copy replays: every game, ended or not, to what is stored of it.
	ctx := context.Background()
	store, err := sqlite.Open(ctx, restored)
	if err != nil {
		t.Fatalf("open the restored data: %v", err)
	}
	ids := gameIDs(t, filepath.Join(restored, sqlite.FileName))
	svc := game.New(store, nil)
	moves := 0
	for _, id := range ids {
		v, err := svc.Verify(ctx, id)
		if err != nil {
			t.Fatalf("verify game %d: %v", id, err)
		}
		for _, m := range v.Mismatches {
			t.Errorf("game %d in the copy: %s", id, m)
		}
		moves += v.Replayed.Moves()
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if len(ids) < cfg.Sessions || moves < 500 {
		t.Fatalf("the copy holds %d games with %d moves; the players had been moving for 3 s", len(ids), moves)
	}
	t.Logf("backup under load: %d games, %d moves, every one replayed to its stored score", len(ids), moves)

	// Restoring is serving from the copy: same host key, same players.
	var before, after string
	dial(t, srv.addr, clientKey(t), &before)
	copySrv := startProcess(t, bin, restored)
	dial(t, copySrv.addr, clientKey(t), &after)
	if before != after {
		t.Errorf("host key after restore %s, before %s", after, before)
	}
}

// gameIDs lists every game of a database file.
func gameIDs(t *testing.T, path string) []int64 {
	t.Helper()
	c, err := sql.Open("sqlite3", "file:"+path+"?_query_only=true")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query(`SELECT id FROM games ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// TestBackupModes: the copy is as private as the live data: the database
// and the host key 0600 (the database was copied 0644, readable by every
// user of the machine), and the directories backup makes 0700.
func TestBackupModes(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	store, err := sqlite.Open(context.Background(), data, sqlite.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := server.LoadOrCreateHostKey(filepath.Join(data, server.HostKeyFile)); err != nil {
		t.Fatal(err)
	}
	backups := filepath.Join(t.TempDir(), "backups")
	dest := filepath.Join(backups, "today")
	var stderr strings.Builder
	if code := run([]string{"backup", "--data", data, dest}, io.Discard, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for path, want := range map[string]os.FileMode{
		backups:                                 os.ModeDir | 0o700,
		dest:                                    os.ModeDir | 0o700,
		filepath.Join(dest, sqlite.FileName):    0o600,
		filepath.Join(dest, server.HostKeyFile): 0o600,
	} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode(); got != want {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
	}
}

// TestBackupFailureLeavesNothing: a host key that cannot be read fails
// the backup before anything is copied, so DEST is left as it was. The
// database used to be copied first: DEST then held a database without
// its host key, and the retry was refused as "not empty".
func TestBackupFailureLeavesNothing(t *testing.T) {
	data := t.TempDir()
	st, err := sqlite.Open(context.Background(), data, sqlite.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	// A host key that cannot be read: a directory (EACCES or EIO alike).
	if err := os.Mkdir(filepath.Join(data, server.HostKeyFile), 0o700); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "backup")
	var out, errOut bytes.Buffer
	if code := run([]string{"backup", "--data", data, dest}, &out, &errOut); code != 1 {
		t.Fatalf("backup without a readable host key: status %d, stdout %q; want 1", code, out.String())
	}
	if entries, err := os.ReadDir(dest); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed backup left %v (%v) at %s; want nothing", entries, err, dest)
	}
}
