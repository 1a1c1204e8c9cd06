package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/pressly/goose/v3"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/migrations"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/storetest"
)

func schemaVersion(t *testing.T, db *sql.DB) int64 {
	t.Helper()
	var v int64
	if err := db.QueryRow(`SELECT max(version_id) FROM goose_db_version WHERE is_applied`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func tableExists(t *testing.T, db *sql.DB, name string) bool {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func latestMigration(t *testing.T) int64 {
	t.Helper()
	entries, err := fs.ReadDir(migrations.SQLite, ".")
	if err != nil || len(entries) == 0 {
		t.Fatalf("embedded migrations: %v (%d files)", err, len(entries))
	}
	// The last file's number: while the numbers reserved for changes in
	// flight leave a gap, it is not the count of files.
	last := entries[len(entries)-1].Name()
	n, err := strconv.ParseInt(last[:strings.IndexByte(last, '_')], 10, 64)
	if err != nil {
		t.Fatalf("migration %q: %v", last, err)
	}
	return n
}

func TestMigrationsFromEmptyAndTwice(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for range 2 {
		s, err := Open(ctx, dir, WithLogger(quiet))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := schemaVersion(t, s.read), latestMigration(t); got != want {
			t.Errorf("schema version %d, want %d", got, want)
		}
		for _, table := range []string{"players", "games", "move_chunks", "player_bests"} {
			if !tableExists(t, s.read, table) {
				t.Errorf("table %s missing", table)
			}
		}
		var mode string
		if err := s.read.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal_mode = %q (%v), want wal", mode, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestConnectionSettingsReachEveryConnection(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	// Hold several read connections at once so the pool opens new ones.
	var conns []*sql.Conn
	for range 4 {
		c, err := s.read.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	wc, err := s.write.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conns = append(conns, wc)
	for i, c := range conns {
		var fk, busy, sync int
		var mode string
		if err := c.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if fk != 1 || busy < 1000 || sync != 2 || mode != "wal" {
			t.Errorf("connection %d: foreign_keys=%d busy_timeout=%d synchronous=%d journal_mode=%s", i, fk, busy, sync, mode)
		}
	}
	var autoCheckpoint int
	if err := wc.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&autoCheckpoint); err != nil || autoCheckpoint != 0 {
		t.Errorf("writer wal_autocheckpoint = %d (%v), want 0: checkpoints belong to the background loop", autoCheckpoint, err)
	}
	var walLimit int
	if err := wc.QueryRowContext(ctx, `PRAGMA journal_size_limit`).Scan(&walLimit); err != nil || walLimit != 32<<20 {
		t.Errorf("writer journal_size_limit = %d (%v), want 32 MiB", walLimit, err)
	}
	if _, err := conns[0].ExecContext(ctx, `DELETE FROM players`); err == nil {
		t.Error("a read-pool connection could write")
	}
	for _, c := range conns {
		c.Close()
	}
}

func TestConcurrentOpensMigrateOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const n = 6
	stores := make([]*Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = Open(ctx, dir, WithLogger(quiet)) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Open %d: %v", i, errs[i])
		}
	}
	var rows int
	if err := stores[0].read.QueryRow(`SELECT count(*) FROM goose_db_version`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	entries, err := fs.ReadDir(migrations.SQLite, ".")
	if err != nil {
		t.Fatal(err)
	}
	if want := len(entries) + 1; rows != want { // + goose's version 0 row
		t.Errorf("goose_db_version has %d rows, want %d (a migration ran twice?)", rows, want)
	}
	for _, s := range stores {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.write.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, 1)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, dir, WithLogger(quiet))
	if !errors.Is(err, store.ErrSchemaTooNew) {
		t.Fatalf("Open of a newer database: err = %v, want store.ErrSchemaTooNew", err)
	}
	t.Logf("the refusal reads: %v", err)
}

func TestFailingMigrationChangesNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := sql.Open("sqlite3", dsn(path, false, "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	good := fstest.MapFS{
		"00001_a.sql": {Data: []byte("-- +goose Up\nCREATE TABLE a (x INTEGER);\nINSERT INTO a VALUES (1);\n-- +goose Down\nDROP TABLE a;\n")},
	}
	if err := migrate(ctx, db, path+".lock", good, quiet); err != nil {
		t.Fatal(err)
	}
	bad := fstest.MapFS{
		"00001_a.sql": good["00001_a.sql"],
		"00002_b.sql": {Data: []byte("-- +goose Up\nCREATE TABLE b (x INTEGER);\nUPDATE a SET x = 2;\nINSERT INTO no_such_table VALUES (1);\n-- +goose Down\nDROP TABLE b;\n")},
	}
	err = migrate(ctx, db, path+".lock", bad, quiet)
	if err == nil {
		t.Fatal("a failing migration reported success")
	}
	t.Logf("failure reads: %v", err)
	if tableExists(t, db, "b") {
		t.Error("table b of the failed migration exists")
	}
	var x int
	if err := db.QueryRow(`SELECT x FROM a`).Scan(&x); err != nil || x != 1 {
		t.Errorf("a.x = %d (%v), want 1: the failed migration's UPDATE stuck", x, err)
	}
	if v := schemaVersion(t, db); v != 1 {
		t.Errorf("schema version %d after failed migration, want 1", v)
	}
}

func TestDurabilityOption(t *testing.T) {
	for _, c := range []struct {
		d    Durability
		want int
	}{{PowerSafe, 2}, {CrashSafe, 1}} {
		s := openStore(t, WithDurability(c.d))
		for name, db := range map[string]*sql.DB{"write": s.write, "read": s.read} {
			var got int
			if err := db.QueryRow(`PRAGMA synchronous`).Scan(&got); err != nil || got != c.want {
				t.Errorf("%s: %s connection has synchronous=%d (%v), want %d", c.d, name, got, err, c.want)
			}
		}
	}
	if _, err := Open(context.Background(), t.TempDir(), WithDurability("OFF")); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("durability OFF: err = %v, want store.ErrInvalid", err)
	}
}

// TestDatabaseMigratedBeforeTheSplitOpens: the SQLite migrations moved from
// the root of package migrations to migrations/sqlite/ when PostgreSQL got
// its own. goose keys a database's history on the version numbers alone,
// so a database migrated from the old layout (the same files at the root,
// as this test rebuilds it) opens with nothing to apply and nothing
// refused.
func TestDatabaseMigratedBeforeTheSplitOpens(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	old := fstest.MapFS{}
	entries, err := fs.ReadDir(migrations.SQLite, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := fs.ReadFile(migrations.SQLite, e.Name())
		if err != nil {
			t.Fatal(err)
		}
		old[e.Name()] = &fstest.MapFile{Data: data}
	}
	conn, err := sql.Open("sqlite3", dsn(path, false, "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	conn.SetMaxOpenConns(1)
	if err := migrate(ctx, conn, path+".migrate-lock", old, quiet); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(`INSERT INTO players (fingerprint, key_type, name, first_seen, last_seen) VALUES ('SHA256:before', 'k', 'before', 1, 1);
		INSERT INTO player_keys (fingerprint, player_id, key_type, added_at, last_used) SELECT fingerprint, id, key_type, 1, 1 FROM players`); err != nil {
		t.Fatal(err)
	}
	conn.Close()

	var logs logBuffer
	s, err := Open(ctx, dir, WithLogger(logs.logger()))
	if err != nil {
		t.Fatalf("a database migrated before the split: %v", err)
	}
	defer s.Close()
	if strings.Contains(logs.String(), "applied migration") {
		t.Errorf("migrations applied again:\n%s", logs.String())
	}
	if p, err := s.UpsertPlayer(ctx, "SHA256:before", "k", "before"); err != nil || p.FirstSeen.UnixMicro() != 1 {
		t.Errorf("the player stored before: %+v, %v", p, err)
	}
}

// databaseBefore is a database in dir migrated up to the migration
// before first, as an older ssh2048 left it, on a connection of its own
// that the test's end closes.
func databaseBefore(t *testing.T, dir, first string) *sql.DB {
	t.Helper()
	path := filepath.Join(dir, FileName)
	db, err := sql.Open("sqlite3", dsn(path, false, "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if err := migrate(context.Background(), db, path+".migrate-lock", storetest.MigrationsBefore(t, migrations.SQLite, first), quiet); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestAccountsMigrationKeepsEveryPlayer: migration 00010 makes every
// player from before accounts an account with its one key
// (storetest.CheckPlayersBecameAccounts).
func TestAccountsMigrationKeepsEveryPlayer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	conn := databaseBefore(t, dir, "00010")
	if _, err := conn.Exec(storetest.PlayersBeforeAccounts("")); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	s, err := Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.CheckPlayersBecameAccounts(t, s)
}

// migratedBy opens a store on a fresh database, lets write fill it, and
// closes it: what a migration's Down then starts from, with goose on the
// file.
func migratedBy(t *testing.T, write func(s storetest.Store)) (*sql.DB, *goose.Provider) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	write(s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawWriteDB(t, dir)
	p, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.SQLite, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	return db, p
}

// TestBucketsMigrationDown: migration 00014 dropped the rank buckets;
// its Down puts them back counting every best, with their triggers
// (storetest.CheckBucketsDown).
func TestBucketsMigrationDown(t *testing.T) {
	db, p := migratedBy(t, func(s storetest.Store) { storetest.SpreadScores(t, s) })
	storetest.CheckBucketsDown(t, db, p)
}

// TestMoveChunksMigration: migration 00015 moves every game's moves from a
// row a move into chunks and the games' tails, and its Down back, each
// move where it was; the store reads them back as they were stored, and
// goes on appending to a migrated game.
func TestMoveChunksMigration(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := databaseBefore(t, dir, "00015")
	const board = "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2"
	if _, err := db.Exec(`INSERT INTO players (id, fingerprint, key_type, name, first_seen, last_seen) VALUES (1, 'SHA256:m', 'k', 'm', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(15, 15))
	lengths := []int{0, 1, 63, 64, 65, 200}
	want := map[int64][]engine.Direction{}
	for i, n := range lengths {
		id := int64(i + 1)
		// One game in progress per (player, size, kind): each its own size or kind.
		if _, err := db.Exec(`INSERT INTO games (id, player_id, size, kind, seed, moves, board, started_at, updated_at, reached_at)
			VALUES (?, 1, ?, ?, 1, ?, ?, 1, 1, 1)`, id, 3+i%3, []string{"human", "bot"}[i/3], n, board); err != nil {
			t.Fatal(err)
		}
		for seq := range n {
			d := engine.Direction(rng.IntN(4))
			if _, err := db.Exec(`INSERT INTO moves (game_id, seq, dir) VALUES (?, ?, ?)`, id, seq, uint8(d)); err != nil {
				t.Fatal(err)
			}
			want[id] = append(want[id], d)
		}
	}

	storedAsChunks := func(when string) {
		t.Helper()
		s, err := Open(ctx, dir, WithLogger(quiet))
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		defer s.Close()
		for i, n := range lengths {
			id := int64(i + 1)
			g, err := s.FullGame(ctx, id)
			if err != nil || !slices.Equal(g.Dirs, want[id]) {
				t.Errorf("%s: game of %d moves reads back %v (%v), want %v", when, n, g.Dirs, err, want[id])
			}
			var chunks, tail int
			if err := s.read.QueryRow(`SELECT (SELECT count(*) FROM move_chunks WHERE game_id = ?1), (SELECT length(tail) FROM games WHERE id = ?1)`, id).
				Scan(&chunks, &tail); err != nil || chunks != n/store.ChunkLen || tail != n%store.ChunkLen {
				t.Errorf("%s: game of %d moves has %d chunks and a tail of %d (%v), want %d and %d", when, n, chunks, tail, err, n/store.ChunkLen, n%store.ChunkLen)
			}
		}
	}
	storedAsRows := func(when string) {
		t.Helper()
		for i, n := range lengths {
			id := int64(i + 1)
			rows, err := db.Query(`SELECT seq, dir FROM moves WHERE game_id = ? ORDER BY seq`, id)
			if err != nil {
				t.Fatal(err)
			}
			got, err := store.ScanMoves(rows)
			rows.Close()
			if err != nil || !slices.Equal(got, want[id]) {
				t.Errorf("%s: game of %d moves has rows %v (%v), want %v", when, n, got, err, want[id])
			}
		}
		if tableExists(t, db, "move_chunks") {
			t.Errorf("%s: move_chunks is still there", when)
		}
		if _, err := db.Exec(`SELECT tail FROM games`); err == nil {
			t.Errorf("%s: games.tail is still there", when)
		}
	}

	storedAsRows("before 00015")
	storedAsChunks("after Up")
	p, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.SQLite, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 14); err != nil {
		t.Fatalf("down to 00014: %v", err)
	}
	storedAsRows("after Down")
	storedAsChunks("after Up again")

	// The game of 63 moves goes on: its 64th move fills its first chunk.
	s, err := Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.AppendMove(ctx, 3, 63, engine.Left, store.MoveState{Moves: 64, Board: board}); err != nil {
		t.Fatal(err)
	}
	want[3] = append(want[3], engine.Left)
	if g, err := s.FullGame(ctx, 3); err != nil || !slices.Equal(g.Dirs, want[3]) {
		t.Errorf("after a 64th move: %v (%v), want %v", g.Dirs, err, want[3])
	}
	if n := countMoves(t, s, 3); n != 64 {
		t.Errorf("after a 64th move the game holds %d moves, want 64", n)
	}
}

// TestAccountIDsMigration: migration 00021 makes players AUTOINCREMENT
// (the id of an account a merge deleted is never given again), with
// every row kept and every row that refers to a player still its, the
// foreign keys checked; its Down puts players back as they were, rows
// kept too.
func TestAccountIDsMigration(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	storetest.SpreadScores(t, s)
	ann, err := s.UpsertPlayer(ctx, "SHA256:ann", "ssh-ed25519", "ann")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpsertPlayer(ctx, "SHA256:bob", "ssh-ed25519", "bob"); err != nil {
		t.Fatal(err)
	}
	hash, _ := store.LinkCodeHash(store.NewLinkCode())
	if _, err := s.AddLinkCode(ctx, store.AccountID(ann.ID), hash); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Link(ctx, hash, "SHA256:bob", true); err != nil { // bob, the newest, merged away
		t.Fatal(err)
	}
	if _, err := s.Ban(ctx, store.Action{Actor: "console:test", Reason: "test"}, store.BanSpec{Kind: store.BanPlayer, Target: strconv.FormatInt(ann.ID, 10), PlayerID: ann.ID}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawWriteDB(t, dir)

	// rows is every players row and every reference to one, as text.
	rows := func() string {
		t.Helper()
		var out string
		err := db.QueryRow(`SELECT
			(SELECT group_concat(id || ' ' || fingerprint || ' ' || key_type || ' ' || name || ' ' || first_seen || ' ' || last_seen || ' ' ||
				coalesce(name_key, '-') || ' ' || coalesce(renamed_at, '-') || ' ' || hidden || ' ' || name_locked_until, '; ')
				FROM (SELECT * FROM players ORDER BY id)) || ' | ' ||
			(SELECT group_concat(player_id, ' ') FROM (SELECT player_id FROM games ORDER BY id)) || ' | ' ||
			(SELECT group_concat(player_id || ' ' || fingerprint, ' ') FROM (SELECT * FROM player_keys ORDER BY fingerprint)) || ' | ' ||
			(SELECT group_concat(player_id || ' ' || game_id, ' ') FROM (SELECT * FROM player_bests ORDER BY player_id, size, kind)) || ' | ' ||
			(SELECT group_concat(player_id || ' ' || name_key, ' ') FROM (SELECT * FROM player_names ORDER BY name_key)) || ' | ' ||
			(SELECT group_concat(player_id, ' ') FROM bans)`).Scan(&out)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	check := func(when string, autoincrement bool, want string) {
		t.Helper()
		if got := rows(); got != want {
			t.Errorf("%s: the rows changed:\n got %s\nwant %s", when, got, want)
		}
		var schema string
		if err := db.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'players'`).Scan(&schema); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(schema, "AUTOINCREMENT") != autoincrement {
			t.Errorf("%s: players is %s, want AUTOINCREMENT %v", when, schema, autoincrement)
		}
		var broken int
		if err := db.QueryRow(`SELECT count(*) FROM pragma_foreign_key_check`).Scan(&broken); err != nil || broken != 0 {
			t.Errorf("%s: %d rows refer to no row (%v)", when, broken, err)
		}
		// The largest id given so far, from which the next goes on: at
		// least the largest kept (bob's, deleted above it, where 00021
		// ran before the merge, as it first did here).
		var next, last int64
		if err := db.QueryRow(`SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'players'), 0), (SELECT max(id) FROM players)`).Scan(&next, &last); err != nil {
			t.Fatal(err)
		}
		if autoincrement && next < last || !autoincrement && next != 0 {
			t.Errorf("%s: sqlite_sequence says %d of players, whose largest id is %d", when, next, last)
		}
	}
	want := rows()
	check("after Up", true, want)
	p, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.SQLite, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 20); err != nil {
		t.Fatalf("down to 00020: %v", err)
	}
	check("after Down", false, want)
	if _, err := p.UpTo(ctx, 21); err != nil {
		t.Fatalf("up to 00021: %v", err)
	}
	check("after Up again", true, want)

}

// TestMergedAccountsMigration: migration 00022 adds merged_accounts,
// which a merge writes; its Down drops it (storetest.CheckMergedAccountsDown).
func TestMergedAccountsMigration(t *testing.T) {
	var kept, gone store.AccountID
	db, p := migratedBy(t, func(s storetest.Store) { kept, gone = storetest.MergeOneAccount(t, s) })
	storetest.CheckMergedAccountsDown(t, db, p, kept, gone)
}
