package sqlite_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/ssh2048/ssh2048/store/sqlite"
	"github.com/ssh2048/ssh2048/store/storetest"
)

// TestStore runs the stores' conformance suite against SQLite; package
// store/postgres runs the same against PostgreSQL.
func TestStore(t *testing.T) {
	storetest.Run(t, backend)
}

var backend = storetest.Backend{
	Open: func(tb testing.TB, log *slog.Logger) (storetest.Store, func() (storetest.Store, error)) {
		tb.Helper()
		dir := tb.TempDir()
		open := func() (storetest.Store, error) {
			s, err := sqlite.Open(context.Background(), dir, sqlite.WithLogger(log))
			if err != nil {
				return nil, err
			}
			tb.Cleanup(func() { s.Close() })
			return s, nil
		}
		s, err := open()
		if err != nil {
			tb.Fatal(err)
		}
		return s, open
	},
	SetSeeds: func(s storetest.Store, next func() uint64) { sqlite.SetNewSeed(s.(*sqlite.Store), next) },
}

// TestOldGenerator: a game stored before generators were recorded still
// replays with PCG (the suite's check; the old game is made here, in SQL).
func TestOldGenerator(t *testing.T) {
	storetest.RunOldGenerator(t, backend, func(tb testing.TB, s storetest.Store, id int64, board string, maxTile int) {
		tb.Helper()
		if _, err := sqlite.WriteDB(s.(*sqlite.Store)).Exec(`UPDATE games SET generator = 1, board = ?, max_tile = ? WHERE id = ?`, board, maxTile, id); err != nil {
			tb.Fatal(err)
		}
	})
}
