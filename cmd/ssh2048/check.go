package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/ssh2048/ssh2048/store/sqlite"
)

// startupCheckBudget is how long serve spends checking the database
// before it listens. quick_check reads every page: on a small database it
// takes milliseconds, on a large one longer than a restart should; then
// the server starts without the answer and says so.
const startupCheckBudget = 5 * time.Second

func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", "usage: ssh2048 check [--data DIR] [--quick]\n\n"+
		"Checks the database for damage (SQLite's integrity_check), with the server\n"+
		"running or not.\n"+
		"Exit status: 0 sound, 1 damaged or not checked, 2 usage.", stdout, stderr)
	data := fs.String("data", stateDirectory(), "data directory (default $STATE_DIRECTORY, else ./data)")
	quick := fs.Bool("quick", false, "quick_check only: every page, not every index against its table (faster)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	path := filepath.Join(*data, sqlite.FileName)
	start := time.Now()
	if err := sqlite.CheckFile(context.Background(), path, !*quick); err != nil {
		fmt.Fprintf(stderr, "ssh2048 check: %v\n", err)
		if errors.Is(err, sqlite.ErrCorrupt) {
			fmt.Fprintln(stderr, damagedHint(*data))
		}
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok (%v)\n", path, time.Since(start).Round(time.Millisecond))
	return 0
}

// damagedHint is what an operator is told to do about a damaged database.
func damagedHint(data string) string {
	return fmt.Sprintf("Stop the server, keep a copy of %s, and restore the last backup "+
		"(docs/operating.md, \"Backups and other operations\"); sqlite3's .recover may save what the backup lacks.", filepath.Join(data, sqlite.FileName+"*"))
}

// checkAtStart runs the store's quick check within startupCheckBudget:
// damage stops the server with what to do; running out of time does not.
func checkAtStart(ctx context.Context, store *sqlite.Store, data string, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, startupCheckBudget)
	defer cancel()
	start := time.Now()
	err := store.Check(ctx, false)
	switch {
	case errors.Is(err, sqlite.ErrCorrupt):
		return fmt.Errorf("%w. %s", err, damagedHint(data))
	case errors.Is(err, context.DeadlineExceeded):
		log.Warn("database check not finished; starting anyway", "after", startupCheckBudget,
			"hint", "run `ssh2048 check` to check it whole")
		return nil
	case err != nil:
		return err
	}
	log.Info("database checked", "took", time.Since(start).Round(time.Millisecond))
	return nil
}
