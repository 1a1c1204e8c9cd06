package sqlite_test

import (
	"context"
	"database/sql"
	"log/slog"
	"testing"

	"github.com/ssh2048/ssh2048/store/sqlite"
	"github.com/ssh2048/ssh2048/store/storetest"
)

// TestStore runs the stores' conformance suite against SQLite; package
// store/postgres runs the same against PostgreSQL.
func TestStore(t *testing.T) {
	storetest.Run(t, storetest.Backend{
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
		Exec: func(tb testing.TB, s storetest.Store, sql string, args ...any) {
			tb.Helper()
			if _, err := sqlite.WriteDB(s.(*sqlite.Store)).Exec(sql, args...); err != nil {
				tb.Fatalf("%s: %v", sql, err)
			}
		},
		Ints: func(tb testing.TB, s storetest.Store, sql string, args ...any) [][]int64 {
			tb.Helper()
			rows, err := sqlite.ReadDB(s.(*sqlite.Store)).Query(sql, args...)
			if err != nil {
				tb.Fatalf("%s: %v", sql, err)
			}
			cols, err := rows.Columns()
			if err != nil {
				tb.Fatal(err)
			}
			return storetest.ScanInts(tb, closer{rows}, len(cols))
		},
	})
}

// closer adapts *sql.Rows, whose Close returns an error, to storetest.Rows.
type closer struct{ *sql.Rows }

func (c closer) Close() { c.Rows.Close() }
