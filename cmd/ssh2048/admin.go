package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ssh2048/ssh2048/moderation"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// runAdmin is `ssh2048 admin COMMAND … [--data DIR | --database URL]`:
// the admin commands of `ssh HOST admin …`, run on the database itself,
// for when SSH is not an option (no admin key yet, a server that is
// down). The audit log names the operator "console:" and their user name.
// Exit statuses are the admin commands' (docs/moderation.md); 1 also when
// the database cannot be opened.
func runAdmin(args []string, stdout, stderr io.Writer) int {
	data, database, rest, err := adminTarget(args)
	if err != nil {
		fmt.Fprintf(stderr, "ssh2048 admin: %v\n", err)
		return 2
	}
	if len(rest) == 0 || rest[0] == "help" || isHelpFlag(rest[0]) {
		fmt.Fprintln(stdout, "usage: ssh2048 admin COMMAND [ARGS] [--data DIR | --database URL]")
		fmt.Fprintln(stdout)
		moderation.Usage(stdout)
		if len(rest) == 0 {
			return 2
		}
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	st, err := openAdminStore(ctx, data, database, log)
	if err != nil {
		fmt.Fprintf(stderr, "ssh2048 admin: %v\n", err)
		return 1
	}
	defer st.Close()
	return moderation.Run(ctx, moderation.Env{Store: st, Out: stdout, Err: stderr, Log: log,
		Actor: store.Action{Actor: "console:" + operator()}}, rest)
}

// adminTarget takes --data and --database out of args, wherever they
// stand, with their environment fallbacks as serve has them.
func adminTarget(args []string) (data, database string, rest []string, err error) {
	data, database = stateDirectory(), os.Getenv("SSH2048_DATABASE_URL")
	if v := os.Getenv(envName("database")); v != "" {
		database = v
	}
	if v := os.Getenv(envName("data")); v != "" {
		data = v
	}
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || name != "data" && name != "database" {
			rest = append(rest, args[i])
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return "", "", nil, fmt.Errorf("--%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if name == "data" {
			data = value
		} else {
			database = value
		}
	}
	// A URL that is no PostgreSQL URL is a mistake of the command line
	// (status 2), found before anything is opened, as serve finds it.
	if err := checkDatabaseURL(database); err != nil {
		return "", "", nil, err
	}
	return data, database, rest, nil
}

// adminStore is what the admin commands need of a store.
type adminStore interface {
	store.Moderator
	Close() error
}

// openAdminStore opens the database of serve's --data or --database; a
// data directory without a database is an error, not a new database.
func openAdminStore(ctx context.Context, data, database string, log *slog.Logger) (adminStore, error) {
	if database != "" {
		if err := checkDatabaseURL(database); err != nil {
			return nil, err
		}
		return postgres.Open(ctx, database, postgres.WithLogger(log))
	}
	if _, err := os.Stat(filepath.Join(data, sqlite.FileName)); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no database in %s; name the server's data directory with --data, or its PostgreSQL with --database", data)
	}
	return sqlite.Open(ctx, data, sqlite.WithLogger(log))
}

// operator is the user running the command, for the audit log.
func operator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return store.CleanText(u.Username)
	}
	return "unknown"
}
