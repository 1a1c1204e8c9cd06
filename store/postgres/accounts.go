package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/accounts"
)

var _ store.Accounts = (*Store)(nil)

// pgQuerier gives package accounts a transaction or the read pool.
type pgQuerier struct {
	q interface {
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
		querier
	}
}

func (p pgQuerier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := p.q.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (p pgQuerier) QueryRow(ctx context.Context, query string, args ...any) accounts.Row {
	return pgRow{p.q.QueryRow(ctx, query, args...)}
}

func (p pgQuerier) Query(ctx context.Context, query string, args ...any) (accounts.Rows, error) {
	return p.q.Query(ctx, query, args...)
}

type pgRow struct{ r pgx.Row }

func (r pgRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if noRows(err) {
		return accounts.ErrNoRows
	}
	return err
}

// UpsertPlayer resolves the key that authenticated to its account, or
// makes one, as store.Store.UpsertPlayer and store.Accounts say.
func (s *Store) UpsertPlayer(ctx context.Context, fingerprint, keyType, rawName string) (store.Player, error) {
	if fingerprint == "" {
		return store.Player{}, fmt.Errorf("upsert player: %w: empty fingerprint", store.ErrInvalid)
	}
	var p store.Player
	err := s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, now int64) (err error) {
		p, err = accounts.Login(ctx, pgQuerier{tx}, now, fingerprint, keyType, rawName)
		return err
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("upsert player %s: %w", fingerprint, err)
	}
	return p, nil
}

// Account returns an account, or store.ErrNotFound.
func (s *Store) Account(ctx context.Context, id store.AccountID) (store.Account, error) {
	return accounts.Account(ctx, pgQuerier{s.pool}, id)
}

// AccountKeys lists an account's keys, oldest first.
func (s *Store) AccountKeys(ctx context.Context, id store.AccountID) ([]store.Key, error) {
	return accounts.Keys(ctx, pgQuerier{s.pool}, id)
}

// RemoveKey removes one of the account's keys, never the last.
func (s *Store) RemoveKey(ctx context.Context, id store.AccountID, fingerprint string) error {
	err := s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, _ int64) error {
		return accounts.RemoveKey(ctx, pgQuerier{tx}, id, fingerprint)
	})
	if err != nil {
		return fmt.Errorf("remove key: %w", err)
	}
	return nil
}

// AddLinkCode stores a link code's hash for the account.
func (s *Store) AddLinkCode(ctx context.Context, id store.AccountID, codeHash []byte) (time.Time, error) {
	var expires int64
	err := s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, now int64) (err error) {
		expires, err = accounts.AddLinkCode(ctx, pgQuerier{tx}, now, id, codeHash)
		return err
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("add link code: %w", err)
	}
	return time.UnixMicro(expires), nil
}

// Link uses a link code from the key with that fingerprint.
func (s *Store) Link(ctx context.Context, codeHash []byte, fingerprint string, merge bool) (store.LinkResult, error) {
	var res store.LinkResult
	err := s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, now int64) (err error) {
		res, err = accounts.Link(ctx, pgQuerier{tx}, now, codeHash, fingerprint, merge)
		return err
	})
	if err != nil {
		return res, fmt.Errorf("link %s: %w", fingerprint, err)
	}
	return res, nil
}

// ClaimName renames the account.
func (s *Store) ClaimName(ctx context.Context, id store.AccountID, name string) (store.Account, error) {
	var a store.Account
	err := s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, now int64) (err error) {
		a, err = accounts.ClaimName(ctx, pgQuerier{tx}, now, id, name)
		return err
	})
	if err != nil {
		return a, fmt.Errorf("claim name: %w", err)
	}
	return a, nil
}
