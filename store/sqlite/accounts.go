package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

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

var _ store.MergeWatcher = (*Store)(nil)

// OnAccountsMerged calls merged with each account a link through this
// store deleted, once the link has committed and before Link returns (on
// its caller's goroutine: merged must not block); see
// store.MergeWatcher. Nothing told is lost, and missed is never called.
// The links of another process on the file are not told: links are made
// over SSH, by the server.
func (s *Store) OnAccountsMerged(merged func(gone store.AccountID), _ func()) (stop func()) {
	return s.merges.Add(merged)
}

// GoneAccounts returns those of ids that are no account now; see
// store.MergeWatcher.
func (s *Store) GoneAccounts(ctx context.Context, ids []store.AccountID) ([]store.AccountID, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("gone accounts: %w", err)
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT asked.value FROM json_each(?) AS asked
		WHERE NOT EXISTS (SELECT 1 FROM players p WHERE p.id = asked.value)`, string(list))
	if err != nil {
		return nil, fmt.Errorf("gone accounts: %w", err)
	}
	defer rows.Close()
	var gone []store.AccountID
	for rows.Next() {
		var id store.AccountID
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("gone accounts: %w", err)
		}
		gone = append(gone, id)
	}
	return gone, rows.Err()
}
