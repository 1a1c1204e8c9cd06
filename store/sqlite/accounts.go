package sqlite

import (
	"context"
	"database/sql"
	"errors"

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
