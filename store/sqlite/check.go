package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// ErrCorrupt: the database file is damaged. SQLite found it so on a read,
// or Check found a problem. Restore a backup (docs/operating.md, "Backups
// and other operations").
var ErrCorrupt = errors.New("database file is damaged")

// maxProblems is how many problems a check reports.
const maxProblems = 10

// Check runs SQLite's quick_check on the database (full: integrity_check,
// which also compares every index with its table, and takes longer) and
// returns nil when it is sound, ErrCorrupt with the first problems SQLite
// found, or the error that stopped the check: ctx's, when it ran out of
// time (quick_check reads every page, so on a large database a server
// gives it a budget and goes on without the answer).
//
// A damaged page is otherwise found only when a player's game reads it,
// and that player gets an error long after the server started; checked at
// start, the operator is told at once.
func (s *Store) Check(ctx context.Context, full bool) error {
	return check(ctx, s.read, s.path, full)
}

// CheckFile checks the database at path like Check, without migrating or
// creating it: for `ssh2048 check`, with the server running or not.
func CheckFile(ctx context.Context, path string, full bool) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	conn, err := sql.Open("sqlite3", dsn(path, true, string(PowerSafe)))
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	defer conn.Close()
	return check(ctx, conn, path, full)
}

func check(ctx context.Context, conn *sql.DB, path string, full bool) error {
	pragma := "quick_check"
	if full {
		pragma = "integrity_check"
	}
	rows, err := conn.QueryContext(ctx, fmt.Sprintf("PRAGMA %s(%d)", pragma, maxProblems))
	if err != nil {
		return checkErr(ctx, path, pragma, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return checkErr(ctx, path, pragma, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return checkErr(ctx, path, pragma, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %w: %s", filepath.Base(path), ErrCorrupt, strings.Join(problems, "; "))
	}
	return nil
}

// checkErr says why a check stopped: the context (SQLite reports an
// interrupt), the damage itself, or something else.
func checkErr(ctx context.Context, path, pragma string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s of %s: %w", pragma, filepath.Base(path), ctx.Err())
	}
	return fmt.Errorf("%s of %s: %w", pragma, filepath.Base(path), corrupt(err))
}

// corrupt wraps SQLite's "malformed" and "not a database" errors with
// ErrCorrupt, so that callers can tell damage from other failures.
func corrupt(err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB) {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return err
}

// secureFiles makes the database readable by its owner only, as the host
// key is: it holds every player's key fingerprint, games and names. SQLite
// creates the -wal and -shm files with the database file's mode, so the
// file is created 0600 before SQLite opens it; files an older version left
// more open are tightened.
func secureFiles(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, 0o600); err != nil {
				return err
			}
		}
	}
	return nil
}
