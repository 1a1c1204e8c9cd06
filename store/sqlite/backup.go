package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ErrBackupExists: the backup's destination is already there; a backup
// never overwrites anything.
var ErrBackupExists = errors.New("destination exists")

// BackupInfo is what a backup copied.
type BackupInfo struct {
	Bytes   int64 // size of the copy
	Players int64
	Games   int64
	Moves   int64
}

// Backup writes a consistent copy of the database file src to dest, while
// a server may be writing to src: SQLite's VACUUM INTO reads the whole
// database inside one read transaction, which in WAL mode sees one commit
// and never blocks the writer (nor is blocked by it). Copying the files
// by hand is not a backup: ssh2048.db alone lacks the commits still in
// ssh2048.db-wal, and the two copied one after the other while moves are
// committed need not fit together.
//
// The copy is written next to dest, checked (PRAGMA integrity_check),
// synced and only then renamed to dest, so dest is either a whole, sound
// copy or absent. dest must not exist (ErrBackupExists). The copy is a
// database on its own, without a -wal file, ready to serve from.
func Backup(ctx context.Context, src, dest string) (BackupInfo, error) {
	if _, err := os.Stat(src); err != nil {
		// Opening a missing file would create an empty database.
		return BackupInfo{}, fmt.Errorf("backup %s: %w", src, err)
	}
	if _, err := os.Lstat(dest); err == nil {
		return BackupInfo{}, fmt.Errorf("backup to %s: %w", dest, ErrBackupExists)
	}
	partial := dest + ".partial"
	os.Remove(partial) // a previous attempt's, never a finished copy
	defer os.Remove(partial)

	// Not a Store: a backup process must not migrate, write or
	// checkpoint the live database. (Not _query_only either: SQLite
	// counts VACUUM INTO as a write, though it writes only the copy.)
	// busy_timeout waits out the moments the server's checkpoint holds a
	// lock the read needs.
	q := url.Values{}
	q.Set("_busy_timeout", "10000")
	from, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: src}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return BackupInfo{}, fmt.Errorf("backup %s: %w", src, err)
	}
	defer from.Close()
	from.SetMaxOpenConns(1)
	// SQLite would make the copy 0644, readable by every user of the
	// machine; it is the players' data, as private as the live database
	// (0600). VACUUM INTO fills an empty file, kept with its mode.
	f, err := os.OpenFile(partial, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("backup to %s: %w", dest, err)
	}
	if err := f.Close(); err != nil {
		return BackupInfo{}, fmt.Errorf("backup to %s: %w", dest, err)
	}
	if _, err := from.ExecContext(ctx, `VACUUM INTO ?`, partial); err != nil {
		return BackupInfo{}, fmt.Errorf("backup %s: vacuum into %s: %w", src, partial, err)
	}
	info, err := checkCopy(ctx, partial)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("backup %s: the copy: %w", src, err)
	}
	if err := syncFile(partial); err != nil {
		return BackupInfo{}, fmt.Errorf("backup %s: %w", src, err)
	}
	// Link, not rename: it fails if dest appeared meanwhile, where a
	// rename would replace it.
	if err := os.Link(partial, dest); err != nil {
		if errors.Is(err, os.ErrExist) {
			err = ErrBackupExists
		}
		return BackupInfo{}, fmt.Errorf("backup to %s: %w", dest, err)
	}
	if err := syncFile(filepath.Dir(dest)); err != nil {
		return BackupInfo{}, fmt.Errorf("backup to %s: %w", dest, err)
	}
	return info, nil
}

// checkCopy checks a copied database and counts what it holds.
func checkCopy(ctx context.Context, path string) (BackupInfo, error) {
	c, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_query_only=true")
	if err != nil {
		return BackupInfo{}, err
	}
	defer c.Close()
	rows, err := c.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("integrity check: %w", err)
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return BackupInfo{}, fmt.Errorf("integrity check: %w", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return BackupInfo{}, fmt.Errorf("integrity check: %w", err)
	}
	if len(problems) > 0 {
		return BackupInfo{}, fmt.Errorf("integrity check: %s", strings.Join(problems, "; "))
	}
	var info BackupInfo
	if err := c.QueryRowContext(ctx, `
		SELECT (SELECT count(*) FROM players), (SELECT count(*) FROM games),
		       (SELECT coalesce(sum(length(dirs)), 0) FROM move_chunks) + (SELECT coalesce(sum(length(tail)), 0) FROM games)
		       + (SELECT count(*) FROM move_log l WHERE l.seq >= (SELECT moves FROM games g WHERE g.id = l.game_id))`).
		Scan(&info.Players, &info.Games, &info.Moves); err != nil {
		return BackupInfo{}, fmt.Errorf("count: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return BackupInfo{}, err
	}
	info.Bytes = st.Size()
	return info, nil
}

// syncFile flushes a file or directory to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
