package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"syscall"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/ssh2048/ssh2048/store"
)

// migrate applies the migrations in fsys that db lacks, using goose's
// provider API. Each .sql migration runs in its own transaction, so one
// that fails changes nothing and the error names it.
//
// goose ships no lock for SQLite, and two processes starting at once would
// both see the same pending list, so an exclusive flock on a file beside
// the database serializes whole runs: the second one finds nothing to do.
// (The lock is a separate file because SQLite's own POSIX locks on the
// database would be dropped if we opened and closed that file ourselves.)
func migrate(ctx context.Context, db *sql.DB, lockPath string, fsys fs.FS, log *slog.Logger) error {
	unlock, err := lockFile(ctx, lockPath)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer unlock()

	p, err := goose.NewProvider(goose.DialectSQLite3, db, fsys, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sources := p.ListSources()
	latest := sources[len(sources)-1].Version
	current, err := p.GetDBVersion(ctx)
	if err != nil {
		return fmt.Errorf("migrate: read schema version: %w", err)
	}
	if current > latest {
		return fmt.Errorf("migrate: %w: database is at version %d, this binary knows up to %d; run a newer ssh2048 or restore a backup",
			store.ErrSchemaTooNew, current, latest)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrate from version %d: %w", current, err)
	}
	for _, r := range results {
		log.Info("db: applied migration", "version", r.Source.Version, "file", r.Source.Path, "took", r.Duration)
	}
	return nil
}

// lockFile takes an exclusive flock on path, waiting (politely, so ctx can
// cancel) while another process holds it.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
