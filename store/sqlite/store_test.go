package sqlite_test

import (
	"context"
	"database/sql"
	"log/slog"
	"testing"

	"github.com/ssh2048/ssh2048/store"
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

// TestScoreBucketsAgreeWithBests: after scores spread across buckets, the
// bucket counts a rank sums (score_bucket_totals) agree with player_bests,
// computed in Go (store.ScoreBucket) from every best; and the check sees
// a stray bucket row.
func TestScoreBucketsAgreeWithBests(t *testing.T) {
	s, _ := backend.Open(t, slog.New(slog.DiscardHandler))
	storetest.SpreadScores(t, s)
	db := sqlite.WriteDB(s.(*sqlite.Store))
	if wrong := wrongBuckets(t, db); wrong != 0 {
		t.Fatalf("%d score buckets disagree with player_bests", wrong)
	}
	if _, err := db.Exec(`INSERT INTO score_buckets (size, kind, bucket, players) VALUES (4, 'human', 99999, 1)`); err != nil {
		t.Fatal(err)
	}
	if wrongBuckets(t, db) == 0 {
		t.Error("the check misses a stray bucket")
	}
}

func wrongBuckets(t *testing.T, db *sql.DB) int {
	t.Helper()
	type key struct {
		size   int
		kind   string
		bucket int64
	}
	want := map[key]int64{}
	rows, err := db.Query(`SELECT size, kind, score FROM player_bests`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k key
		var score int64
		if err := rows.Scan(&k.size, &k.kind, &score); err != nil {
			t.Fatal(err)
		}
		k.bucket, _ = store.ScoreBucket(score)
		want[k]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows, err = db.Query(`SELECT size, kind, bucket, players FROM score_bucket_totals WHERE players <> 0`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	wrong := 0
	for rows.Next() {
		var k key
		var players int64
		if err := rows.Scan(&k.size, &k.kind, &k.bucket, &players); err != nil {
			t.Fatal(err)
		}
		if want[k] != players {
			wrong++
		}
		delete(want, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return wrong + len(want)
}
