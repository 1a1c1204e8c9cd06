package postgres

import (
	"context"

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
