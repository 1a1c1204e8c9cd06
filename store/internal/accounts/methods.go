package accounts

import (
	"context"
	"fmt"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// Methods is store.Accounts and UpsertPlayer for a store whose writer
// runs writes in transactions of type T: a store embeds it, so that both
// stores have the methods once.
type Methods[T any] struct {
	do      func(ctx context.Context, fn func(ctx context.Context, tx T, now int64) error) error
	tx      func(T) Querier
	read    Querier
	changed func(Change)
	// inMerge, if not nil, runs in the transaction of every link, after
	// its merge (TellingMerges).
	inMerge func(ctx context.Context, q Querier, gone store.AccountID) error
}

// Change is what a committed write of accounts changed that a store may
// keep elsewhere too (ranks in memory, say): an account's name, or every
// best of an account merged into another.
type Change struct {
	Account store.AccountID
	Name    string          // its new name; "" if unchanged
	Merged  store.AccountID // the account merged into Account, its bests now Account's; 0 if none
}

// New returns the methods of a store: do runs a write in its
// group-commit writer, tx gives this package the writer's transaction,
// read is its read pool; changed, if not nil, is told of each Change
// once it has committed.
func New[T any](do func(ctx context.Context, fn func(ctx context.Context, tx T, now int64) error) error, tx func(T) Querier, read Querier, changed func(Change)) Methods[T] {
	if changed == nil {
		changed = func(Change) {}
	}
	return Methods[T]{do: do, tx: tx, read: read, changed: changed}
}

// TellingMerges is m with tell run in the transaction of every link,
// once the key's account is merged away (gone): for a store whose news
// of a merge must commit with the merge, and only then (PostgreSQL's
// NOTIFY; store.MergeWatcher).
func (m Methods[T]) TellingMerges(tell func(ctx context.Context, q Querier, gone store.AccountID) error) Methods[T] {
	m.inMerge = tell
	return m
}

func (m Methods[T]) write(ctx context.Context, fn func(ctx context.Context, q Querier, now int64) error) error {
	return m.do(ctx, func(ctx context.Context, tx T, now int64) error { return fn(ctx, m.tx(tx), now) })
}

// UpsertPlayer resolves the key that authenticated to its account, or
// makes one, as store.Store.UpsertPlayer and store.Accounts say; the
// user name is a new account's proposed name and nothing else.
func (m Methods[T]) UpsertPlayer(ctx context.Context, fingerprint, keyType, rawName string) (store.Player, error) {
	if fingerprint == "" {
		return store.Player{}, fmt.Errorf("upsert player: %w: empty fingerprint", store.ErrInvalid)
	}
	var p store.Player
	var renamed bool
	err := m.write(ctx, func(ctx context.Context, q Querier, now int64) (err error) {
		p, renamed, err = Login(ctx, q, now, fingerprint, keyType, rawName)
		return err
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("upsert player %s: %w", fingerprint, err)
	}
	if renamed {
		m.changed(Change{Account: store.AccountID(p.ID), Name: p.Name})
	}
	return p, nil
}

// Account returns an account, or store.ErrNotFound.
func (m Methods[T]) Account(ctx context.Context, id store.AccountID) (store.Account, error) {
	return Account(ctx, m.read, id)
}

// MergedInto is the account that id, merged away by a link, is part of
// now, or store.ErrNotFound.
func (m Methods[T]) MergedInto(ctx context.Context, id store.AccountID) (store.AccountID, error) {
	return MergedInto(ctx, m.read, id)
}

// AccountKeys lists an account's keys, oldest first.
func (m Methods[T]) AccountKeys(ctx context.Context, id store.AccountID) ([]store.Key, error) {
	return Keys(ctx, m.read, id)
}

// RemoveKey removes one of the account's keys, never the last.
func (m Methods[T]) RemoveKey(ctx context.Context, id store.AccountID, fingerprint string) error {
	err := m.write(ctx, func(ctx context.Context, q Querier, _ int64) error {
		return RemoveKey(ctx, q, id, fingerprint)
	})
	if err != nil {
		return fmt.Errorf("remove key: %w", err)
	}
	return nil
}

// AddLinkCode stores a link code's hash for the account.
func (m Methods[T]) AddLinkCode(ctx context.Context, id store.AccountID, codeHash []byte) (time.Time, error) {
	var expires int64
	err := m.write(ctx, func(ctx context.Context, q Querier, now int64) (err error) {
		expires, err = AddLinkCode(ctx, q, now, id, codeHash)
		return err
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("add link code: %w", err)
	}
	return time.UnixMicro(expires), nil
}

// Link uses a link code from the key with that fingerprint.
func (m Methods[T]) Link(ctx context.Context, codeHash []byte, fingerprint string, merge bool) (store.LinkResult, error) {
	var res store.LinkResult
	err := m.write(ctx, func(ctx context.Context, q Querier, now int64) (err error) {
		res, err = Link(ctx, q, now, codeHash, fingerprint, merge)
		if err == nil && m.inMerge != nil {
			err = m.inMerge(ctx, q, res.From)
		}
		return err
	})
	if err != nil {
		return res, fmt.Errorf("link %s: %w", fingerprint, err)
	}
	m.changed(Change{Account: res.Account.ID, Merged: res.From})
	return res, nil
}

// ClaimName renames the account.
func (m Methods[T]) ClaimName(ctx context.Context, id store.AccountID, name string) (store.Account, error) {
	var a store.Account
	err := m.write(ctx, func(ctx context.Context, q Querier, now int64) (err error) {
		a, err = ClaimName(ctx, q, now, id, name)
		return err
	})
	if err != nil {
		return a, fmt.Errorf("claim name: %w", err)
	}
	m.changed(Change{Account: id, Name: a.Name})
	return a, nil
}
