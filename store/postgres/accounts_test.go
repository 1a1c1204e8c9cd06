package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql's "pgx", for goose
	"github.com/pressly/goose/v3"

	"github.com/ssh2048/ssh2048/migrations"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
)

// TestAccountsMigrationKeepsEveryPlayer is store/sqlite's test of
// migration 00011 on PostgreSQL: every player from before accounts is an
// account with its one key, under the same id, its games its own, its
// name kept unless a look-alike claimed it first or it is generic.
func TestAccountsMigrationKeepsEveryPlayer(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	before := fstest.MapFS{}
	entries, err := fs.ReadDir(migrations.Postgres, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() >= "00011" {
			break
		}
		data, err := fs.ReadFile(migrations.Postgres, e.Name())
		if err != nil {
			t.Fatal(err)
		}
		before[e.Name()] = &fstest.MapFile{Data: data}
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, before, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`
		INSERT INTO players (id, fingerprint, key_type, name, first_seen, last_seen) OVERRIDING SYSTEM VALUE VALUES
			(7, 'SHA256:ann', 'ssh-ed25519', 'ann', 1, 2), (9, 'SHA256:ANN', 'ssh-rsa', 'ANN', 3, 4), (11, 'SHA256:root', 'ssh-ed25519', 'root', 5, 6);
		INSERT INTO games (id, player_id, size, kind, seed, board, started_at, updated_at, reached_at) OVERRIDING SYSTEM VALUE
			VALUES (70, 7, 4, 'human', 1, '', 1, 1, 1), (90, 9, 4, 'human', 2, '', 3, 3, 3)`); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, url)
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

// TestAccountsAcrossNodes: two nodes on one database are one set of
// accounts: a code made on one links on the other, and of claims of one
// name made on both at once, the database grants one.
func TestAccountsAcrossNodes(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	nodes := [2]*postgres.Store{openStore(t, url), openStore(t, url)}
	ann, err := nodes[0].UpsertPlayer(ctx, "SHA256:ann", "ssh-ed25519", "ann")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nodes[1].UpsertPlayer(ctx, "SHA256:ann-laptop", "ssh-ed25519", "lap"); err != nil {
		t.Fatal(err)
	}
	hash, _ := store.LinkCodeHash(store.NewLinkCode())
	if _, err := nodes[0].AddLinkCode(ctx, store.AccountID(ann.ID), hash); err != nil {
		t.Fatal(err)
	}
	if res, err := nodes[1].Link(ctx, hash, "SHA256:ann-laptop", false); err != nil || res.Account.ID != store.AccountID(ann.ID) {
		t.Fatalf("a code of node 0 used on node 1: %+v, %v", res, err)
	}
	if _, err := nodes[0].Link(ctx, hash, "SHA256:ann-laptop", false); !errors.Is(err, store.ErrCodeUsed) {
		t.Fatalf("the code again, on node 0: %v, want ErrCodeUsed", err)
	}

	const n = 16
	ids := make([]store.AccountID, n)
	for i := range ids {
		p, err := nodes[i%2].UpsertPlayer(ctx, fmt.Sprintf("SHA256:claimer-%d", i), "ssh-ed25519", "claimer")
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = store.AccountID(p.ID)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() { _, errs[i] = nodes[i%2].ClaimName(ctx, ids[i], "Quinn") })
	}
	wg.Wait()
	granted := 0
	for i, err := range errs {
		switch {
		case err == nil:
			granted++
		case !errors.Is(err, store.ErrNameTaken):
			t.Errorf("claim %d: %v", i, err)
		}
	}
	if granted != 1 {
		t.Fatalf("%d of %d claims on two nodes granted, want 1", granted, n)
	}
}
