package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/ssh2048/ssh2048/store"
)

// TestUpsertFallbackName: a new account whose user name sanitizes to
// nothing is given a generated name, and a later connection with a clean
// user name does not rename it: the name is the account's.
func TestUpsertFallbackName(t *testing.T) {
	s := openStore(t)
	p, err := s.UpsertPlayer(t.Context(), "SHA256:AbCdEfGhIj", "ssh-ed25519", "\x1b[2J")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Name) != len("player-0000") || p.Name[:7] != "player-" {
		t.Fatalf("name = %q, want player- and four hex digits", p.Name)
	}
	p2, err := s.UpsertPlayer(t.Context(), "SHA256:AbCdEfGhIj", "ssh-ed25519", "\u202ezed")
	if err != nil {
		t.Fatal(err)
	}
	if p2.ID != p.ID || p2.Name != p.Name || !p2.FirstSeen.Equal(p.FirstSeen) || !p2.LastSeen.After(p.LastSeen) {
		t.Fatalf("second upsert = %+v, first %+v", p2, p)
	}
}

// TestExpiredLinkCode: a code past store.LinkCodeTTL is told apart from a
// wrong one, and links no one.
func TestExpiredLinkCode(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	ann, err := s.UpsertPlayer(ctx, "SHA256:ann", "ssh-ed25519", "ann")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpsertPlayer(ctx, "SHA256:laptop", "ssh-ed25519", "lap"); err != nil {
		t.Fatal(err)
	}
	hash, _ := store.LinkCodeHash(store.NewLinkCode())
	if _, err := s.AddLinkCode(ctx, store.AccountID(ann.ID), hash); err != nil {
		t.Fatal(err)
	}
	// As if LinkCodeTTL had passed: the code's expiry is now.
	if err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		_, err := tx.ExecContext(ctx, `UPDATE link_codes SET expires_at = ?`, now)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Link(ctx, hash, "SHA256:laptop", false); !errors.Is(err, store.ErrCodeExpired) {
		t.Fatalf("an expired code: %v, want ErrCodeExpired", err)
	}
	if a, err := s.Account(ctx, store.AccountID(ann.ID)); err != nil || a.Keys != 1 {
		t.Fatalf("after the expired code: %+v, %v; want one key", a, err)
	}
}

// TestMergesAreTold: a link that deletes the key's account tells those
// who asked (store.MergeWatcher) which account it deleted, before Link
// returns; a refused link, and those who stopped asking, are told
// nothing.
func TestMergesAreTold(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	var told, stopped []store.AccountID
	stop := s.OnAccountsMerged(func(gone store.AccountID) { told = append(told, gone) }, func() {})
	defer stop()
	s.OnAccountsMerged(func(gone store.AccountID) { stopped = append(stopped, gone) }, func() {})()
	ann := addPlayer(t, s, "ann")
	lap := addPlayer(t, s, "lap")
	if _, err := s.NewGame(ctx, lap.ID, 4, store.KindHuman); err != nil {
		t.Fatal(err)
	}
	hash, _ := store.LinkCodeHash(store.NewLinkCode())
	if _, err := s.AddLinkCode(ctx, store.AccountID(ann.ID), hash); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Link(ctx, hash, lap.Fingerprint, false); !errors.Is(err, store.ErrMergeNeeded) {
		t.Fatalf("a link of a key with games, without merge: %v, want ErrMergeNeeded", err)
	}
	if len(told) != 0 {
		t.Fatalf("a refused link told %v", told)
	}
	if _, err := s.Link(ctx, hash, lap.Fingerprint, true); err != nil {
		t.Fatal(err)
	}
	if len(told) != 1 || told[0] != store.AccountID(lap.ID) || len(stopped) != 0 {
		t.Fatalf("after the merge: told %v (stopped: %v), want [%d] (none)", told, stopped, lap.ID)
	}
}
