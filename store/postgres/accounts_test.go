package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql's "pgx", for goose
	"github.com/pressly/goose/v3"

	"github.com/ssh2048/ssh2048/migrations"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
	"github.com/ssh2048/ssh2048/store/storetest"
)

// TestAccountsMigrationKeepsEveryPlayer is store/sqlite's test of
// migration 00010, on PostgreSQL (storetest.CheckPlayersBecameAccounts).
func TestAccountsMigrationKeepsEveryPlayer(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, storetest.MigrationsBefore(t, migrations.Postgres, "00010"), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(storetest.PlayersBeforeAccounts("OVERRIDING SYSTEM VALUE")); err != nil {
		t.Fatal(err)
	}
	storetest.CheckPlayersBecameAccounts(t, openStore(t, url))
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
	if granted := storetest.AtOnce(t, n, store.ErrNameTaken, func(i int) error {
		_, err := nodes[i%2].ClaimName(ctx, ids[i], "Quinn")
		return err
	}); granted != 1 {
		t.Fatalf("%d of %d claims on two nodes granted, want 1", granted, n)
	}
}

// TestMergesAreToldToEveryNode: a link on one node that deletes the key's
// account is told (store.MergeWatcher) on every node, the link's own
// included, once it commits; a refused link before it is told nowhere.
func TestMergesAreToldToEveryNode(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	nodes := [2]*postgres.Store{startNode(t, url, "a").store, startNode(t, url, "b").store}
	var told [2]chan store.AccountID
	for i, n := range nodes {
		told[i] = make(chan store.AccountID, 4)
		stop := n.OnAccountsMerged(func(gone store.AccountID) { told[i] <- gone }, func() {})
		t.Cleanup(stop)
	}
	ann, err := nodes[0].UpsertPlayer(ctx, "SHA256:ann", "ssh-ed25519", "ann")
	if err != nil {
		t.Fatal(err)
	}
	lap, err := nodes[1].UpsertPlayer(ctx, "SHA256:ann-laptop", "ssh-ed25519", "lap")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nodes[1].NewGame(ctx, lap.ID, 4, store.KindHuman); err != nil {
		t.Fatal(err)
	}
	hash, _ := store.LinkCodeHash(store.NewLinkCode())
	if _, err := nodes[0].AddLinkCode(ctx, store.AccountID(ann.ID), hash); err != nil {
		t.Fatal(err)
	}
	if _, err := nodes[1].Link(ctx, hash, "SHA256:ann-laptop", false); !errors.Is(err, store.ErrMergeNeeded) {
		t.Fatalf("a link of a key with games, without merge: %v, want ErrMergeNeeded", err)
	}
	if _, err := nodes[1].Link(ctx, hash, "SHA256:ann-laptop", true); err != nil {
		t.Fatal(err)
	}
	for i := range nodes {
		select {
		case gone := <-told[i]:
			if gone != store.AccountID(lap.ID) {
				t.Errorf("node %d was told first of account %d merged away, want %d", i, gone, lap.ID)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("node %d was not told of the merge", i)
		}
	}
}

// TestMergesMissedAreToldWhenTheBusListensAgain: a node whose bus loses
// its connection misses the merges committed meanwhile; once its bus
// listens again it is told that it may have missed some
// (store.MergeWatcher's missed), and GoneAccounts names the account the
// link it missed deleted.
func TestMergesMissedAreToldWhenTheBusListensAgain(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	n := startNode(t, url, "a").store
	missed := make(chan struct{}, 4)
	stop := n.OnAccountsMerged(func(store.AccountID) {}, func() { missed <- struct{}{} })
	t.Cleanup(stop)
	ann, err := n.UpsertPlayer(ctx, "SHA256:ann", "ssh-ed25519", "ann")
	if err != nil {
		t.Fatal(err)
	}
	lap, err := n.UpsertPlayer(ctx, "SHA256:ann-laptop", "ssh-ed25519", "lap")
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := store.LinkCodeHash(store.NewLinkCode())
	if _, err := n.AddLinkCode(ctx, store.AccountID(ann.ID), hash); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Link(ctx, hash, lap.Fingerprint, false); err != nil {
		t.Fatal(err)
	}

	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`); err != nil {
		t.Fatalf("cut the bus's connection: %v", err)
	}
	select {
	case <-missed:
	case <-time.After(10 * time.Second):
		t.Fatal("the node was not told it may have missed merges 10 s after its bus lost its connection")
	}
	asked := []store.AccountID{store.AccountID(ann.ID), store.AccountID(lap.ID)}
	if gone, err := n.GoneAccounts(ctx, asked); err != nil || len(gone) != 1 || gone[0] != store.AccountID(lap.ID) {
		t.Fatalf("GoneAccounts(%v): %v, %v; want [%d]", asked, gone, err, lap.ID)
	}
}
