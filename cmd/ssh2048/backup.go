package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// runBackup is `ssh2048 backup DEST`: a consistent copy of the data
// directory, taken while the server runs (see sqlite.Backup), into DEST, a new
// directory that is a data directory of its own: `ssh2048 serve --data
// DEST` serves from it. Exit status: 0 done, 1 failed (nothing is left at
// DEST but an empty directory, if it made one), 2 usage.
func runBackup(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("backup", `usage: ssh2048 backup [--data DIR] DEST

Copies the database of a data directory, consistently, while the server
runs and players commit moves, and checks the copy's integrity; copies the
host key beside it. DEST is a new (or empty) directory and becomes a data
directory: serve from it, or move its files into place, to restore.
Flags:`, stdout, stderr)
	data := fs.String("data", stateDirectory(), "the data directory to back up (default $STATE_DIRECTORY, else ./data)")
	if code, ok := parseWithArgs(fs, args, 1); !ok {
		return code
	}
	dest := fs.Arg(0)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	info, err := backup(ctx, *data, dest)
	if err != nil {
		fmt.Fprintf(stderr, "ssh2048 backup: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "ssh2048 backup: %s: %d players, %d games, %d moves, %.1f MB; integrity ok\n",
		filepath.Join(dest, sqlite.FileName), info.Players, info.Games, info.Moves, float64(info.Bytes)/1e6)
	return 0
}

// backup copies the database and the host key of data into dest. The key
// is read first, and a copy that fails on the way is taken away again:
// dest holds a whole backup or nothing of one, never a database without
// its key (a restore from it would make every player's ssh warn of a
// changed host key, and a retry would find dest not empty).
func backup(ctx context.Context, data, dest string) (_ sqlite.BackupInfo, err error) {
	src := filepath.Join(data, sqlite.FileName)
	if _, err := os.Stat(src); err != nil {
		return sqlite.BackupInfo{}, fmt.Errorf("no database to back up: %w", err)
	}
	// The host key never changes once made.
	key, err := os.ReadFile(filepath.Join(data, server.HostKeyFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		key = nil // a database that was never served; nothing to keep
	case err != nil:
		return sqlite.BackupInfo{}, fmt.Errorf("host key: %w", err)
	}
	made := false
	if entries, err := os.ReadDir(dest); err == nil && len(entries) > 0 {
		return sqlite.BackupInfo{}, fmt.Errorf("%s is not empty; a backup goes into a new directory", dest)
	} else if errors.Is(err, os.ErrNotExist) {
		made = true
	} else if err != nil {
		return sqlite.BackupInfo{}, err
	}
	if err := os.MkdirAll(dest, 0o700); err != nil {
		return sqlite.BackupInfo{}, err
	}
	defer func() {
		if err == nil {
			return
		}
		for _, name := range []string{sqlite.FileName, server.HostKeyFile} {
			_ = os.Remove(filepath.Join(dest, name))
		}
		if made {
			_ = os.Remove(dest)
		}
	}()
	info, err := sqlite.Backup(ctx, src, filepath.Join(dest, sqlite.FileName))
	if err != nil {
		return sqlite.BackupInfo{}, err
	}
	if key != nil {
		if err := os.WriteFile(filepath.Join(dest, server.HostKeyFile), key, 0o600); err != nil {
			return sqlite.BackupInfo{}, fmt.Errorf("host key: %w", err)
		}
	}
	return info, nil
}
