package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/accounts"
)

var _ store.Accounts = (*Store)(nil)

// sqlQuerier gives package accounts a transaction or the read pool.
type sqlQuerier struct {
	q interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
}

func (s sqlQuerier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := s.q.ExecContext(ctx, accounts.Placeholders(query), args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s sqlQuerier) QueryRow(ctx context.Context, query string, args ...any) accounts.Row {
	return sqlRow{s.q.QueryRowContext(ctx, accounts.Placeholders(query), args...)}
}

func (s sqlQuerier) Query(ctx context.Context, query string, args ...any) (accounts.Rows, error) {
	rows, err := s.q.QueryContext(ctx, accounts.Placeholders(query), args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

type sqlRow struct{ r *sql.Row }

func (r sqlRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return accounts.ErrNoRows
	}
	return err
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }

// UpsertPlayer resolves the key that authenticated to its account, or
// makes one (store.Accounts says how a new account is named); the user
// name is the new account's proposed name and nothing else.
func (s *Store) UpsertPlayer(ctx context.Context, fingerprint, keyType, rawName string) (store.Player, error) {
	if fingerprint == "" {
		return store.Player{}, fmt.Errorf("upsert player: %w: empty fingerprint", store.ErrInvalid)
	}
	var p store.Player
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) (err error) {
		p, err = accounts.Login(ctx, sqlQuerier{tx}, now, fingerprint, keyType, rawName)
		return err
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("upsert player %s: %w", fingerprint, err)
	}
	return p, nil
}

// Account returns an account, or store.ErrNotFound.
func (s *Store) Account(ctx context.Context, id store.AccountID) (store.Account, error) {
	return accounts.Account(ctx, sqlQuerier{s.read}, id)
}

// AccountKeys lists an account's keys, oldest first.
func (s *Store) AccountKeys(ctx context.Context, id store.AccountID) ([]store.Key, error) {
	return accounts.Keys(ctx, sqlQuerier{s.read}, id)
}

// RemoveKey removes one of the account's keys, never the last.
func (s *Store) RemoveKey(ctx context.Context, id store.AccountID, fingerprint string) error {
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, _ int64) error {
		return accounts.RemoveKey(ctx, sqlQuerier{tx}, id, fingerprint)
	})
	if err != nil {
		return fmt.Errorf("remove key: %w", err)
	}
	return nil
}

// AddLinkCode stores a link code's hash for the account.
func (s *Store) AddLinkCode(ctx context.Context, id store.AccountID, codeHash []byte) (time.Time, error) {
	var expires int64
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) (err error) {
		expires, err = accounts.AddLinkCode(ctx, sqlQuerier{tx}, now, id, codeHash)
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
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) (err error) {
		res, err = accounts.Link(ctx, sqlQuerier{tx}, now, codeHash, fingerprint, merge)
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
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) (err error) {
		a, err = accounts.ClaimName(ctx, sqlQuerier{tx}, now, id, name)
		return err
	})
	if err != nil {
		return a, fmt.Errorf("claim name: %w", err)
	}
	return a, nil
}
