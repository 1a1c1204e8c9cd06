package storetest

import (
	"context"
	"database/sql"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pressly/goose/v3"

	"github.com/ssh2048/ssh2048/store"
)

// Migration 00010 (accounts), as both stores test it: each applies the
// migrations before it (MigrationsBefore), writes PlayersBeforeAccounts
// with its own SQL connection, opens its store (which applies 00010 and
// on), and checks the result with CheckPlayersBecameAccounts.

// MigrationsBefore is the migrations of fsys numbered below first
// ("00010"): a database as an older ssh2048 left it.
func MigrationsBefore(tb testing.TB, fsys fs.FS, first string) fstest.MapFS {
	tb.Helper()
	out := fstest.MapFS{}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() >= first {
			break
		}
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			tb.Fatal(err)
		}
		out[e.Name()] = &fstest.MapFile{Data: data}
	}
	return out
}

// PlayersBeforeAccounts is three players and two games as they were kept
// before accounts: ann, ANN (a look-alike of ann under case folding) and
// root (a generic login). overriding is what the dialect needs between a
// table and its VALUES to write ids itself ("OVERRIDING SYSTEM VALUE" in
// PostgreSQL, "" in SQLite).
func PlayersBeforeAccounts(overriding string) string {
	return strings.ReplaceAll(`
		INSERT INTO players (id, fingerprint, key_type, name, first_seen, last_seen) OVERRIDING VALUES
			(7, 'SHA256:ann', 'ssh-ed25519', 'ann', 1, 2), (9, 'SHA256:ANN', 'ssh-rsa', 'ANN', 3, 4), (11, 'SHA256:root', 'ssh-ed25519', 'root', 5, 6);
		INSERT INTO games (id, player_id, size, kind, seed, board, started_at, updated_at, reached_at) OVERRIDING
			VALUES (70, 7, 4, 'human', 1, '', 1, 1, 1), (90, 9, 4, 'human', 2, '', 3, 3, 3)`, "OVERRIDING", overriding)
}

// CheckPlayersBecameAccounts checks a store on PlayersBeforeAccounts
// after migration 00010: every player is an account with its one key,
// under the same id, so that its key finds its games; its name is kept
// (claimed by its first connection) unless a look-alike claimed it
// first or it is a generic login, which get generated names.
func CheckPlayersBecameAccounts(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	for _, tt := range []struct {
		fp   string
		id   int64
		name string
		game int64
	}{
		{"SHA256:ann", 7, "ann", 70},
		{"SHA256:ANN", 9, "", 90},  // "ANN" is ann's under case folding: a generated name
		{"SHA256:root", 11, "", 0}, // a generic login: a generated name
	} {
		keys, err := s.AccountKeys(ctx, store.AccountID(tt.id))
		if err != nil || len(keys) != 1 || keys[0].Fingerprint != tt.fp {
			t.Fatalf("keys of %d = %+v, %v; want its one key %s", tt.id, keys, err, tt.fp)
		}
		p, err := s.UpsertPlayer(ctx, tt.fp, "ssh-ed25519", "someone-else")
		if err != nil || p.ID != tt.id {
			t.Fatalf("UpsertPlayer(%s) = %+v, %v; want account %d", tt.fp, p, err, tt.id)
		}
		if want := tt.name; (want != "" && p.Name != want) || (want == "" && !strings.HasPrefix(p.Name, store.GeneratedPrefix)) {
			t.Errorf("account %d is named %q, want %q (or a generated name)", tt.id, p.Name, want)
		}
		games, err := s.PlayerGames(ctx, tt.id, 10)
		if err != nil || (tt.game != 0 && (len(games) != 1 || games[0].ID != tt.game)) {
			t.Errorf("games of %d = %+v, %v; want game %d", tt.id, games, err, tt.game)
		}
	}
}

// CheckBucketsDown checks migration 00014's Down, as both stores test it:
// on db, whose bests SpreadScores spread (its store closed), Down to
// 00013 puts the rank buckets back, counting every best where its bucket
// says (score_bucket_totals); their triggers count a best that changes
// after it; and Up drops them again.
func CheckBucketsDown(t *testing.T, db *sql.DB, p *goose.Provider) {
	t.Helper()
	ctx := context.Background()
	if _, err := p.DownTo(ctx, 13); err != nil {
		t.Fatalf("down to 00013: %v", err)
	}
	if wrong := wrongBuckets(t, db); wrong != 0 {
		t.Fatalf("after Down: %d score buckets disagree with player_bests", wrong)
	}
	// Every best crosses into another bucket: the triggers move each.
	if _, err := db.Exec(`UPDATE player_bests SET score = score * 10 + 1`); err != nil {
		t.Fatal(err)
	}
	if wrong := wrongBuckets(t, db); wrong != 0 {
		t.Fatalf("after a change: %d score buckets disagree with player_bests", wrong)
	}
	if _, err := db.Exec(`INSERT INTO score_buckets (size, kind, bucket, players) VALUES (4, 'human', 99999, 1)`); err != nil {
		t.Fatal(err)
	}
	if wrongBuckets(t, db) == 0 {
		t.Fatal("the check misses a stray bucket")
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	if _, err := db.Exec(`SELECT 1 FROM score_buckets`); err == nil {
		t.Error("score_buckets is still there after Up")
	}
}

// wrongBuckets is how many of score_bucket_totals' rows disagree with
// the bests of player_bests, bucketed in Go.
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
		k.bucket = scoreBucket(score)
		want[k]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) < 10 {
		t.Fatalf("the bests fall in %d buckets: too few to check them", len(want))
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

// scoreBucket is the rank bucket of a score up to migration 00013: its
// number of decimal digits and its first three digits.
func scoreBucket(score int64) int64 {
	digits := strconv.FormatInt(score, 10)
	prefix, _ := strconv.ParseInt(digits[:min(3, len(digits))], 10, 64)
	return int64(len(digits))*1000 + prefix
}

// MergeOneAccount merges a new account into another through s, as `link
// CODE --merge` does, and returns both ids: what migration 00022's
// merged_accounts records.
func MergeOneAccount(t *testing.T, s Store) (kept, gone store.AccountID) {
	t.Helper()
	ann, bob := addPlayer(t, s, "ann"), addPlayer(t, s, "bob")
	if _, err := s.Link(context.Background(), linkCode(t, s, ann.ID), bob.Fingerprint, true); err != nil {
		t.Fatalf("bob's key joins ann's account: %v", err)
	}
	return store.AccountID(ann.ID), store.AccountID(bob.ID)
}

// CheckMergedAccountsDown: merged_accounts (migration 00022) holds the
// merge of gone into kept (MergeOneAccount); its Down drops the table,
// and Up makes it again, empty: a merge that Down forgot is not made up.
func CheckMergedAccountsDown(t *testing.T, db *sql.DB, p *goose.Provider, kept, gone store.AccountID) {
	t.Helper()
	ctx := context.Background()
	var joined store.AccountID
	if err := db.QueryRow(`SELECT joined_id FROM merged_accounts WHERE account_id = $1`, int64(gone)).Scan(&joined); err != nil || joined != kept {
		t.Fatalf("merged_accounts of account %d: %d, %v; want %d", gone, joined, err, kept)
	}
	if _, err := p.DownTo(ctx, 21); err != nil {
		t.Fatalf("down to 00021: %v", err)
	}
	if _, err := db.Exec(`SELECT 1 FROM merged_accounts`); err == nil {
		t.Error("merged_accounts is still there after Down")
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM merged_accounts`).Scan(&n); err != nil || n != 0 {
		t.Errorf("merged_accounts after Up again: %d rows, %v; want none", n, err)
	}
}
