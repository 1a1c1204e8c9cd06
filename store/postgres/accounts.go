package postgres

import (
	"context"
	"fmt"
	"strconv"

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

var _ store.MergeWatcher = (*Store)(nil)

// mergedTopic is the bus topic of a link that deleted an account (the
// key's, merged into the code's); the payload is that account's id.
const mergedTopic = "merged"

// notifyMerged tells every node, when the link's transaction commits,
// that the account gone was merged away: a link that does not commit
// tells no one.
func notifyMerged(ctx context.Context, q accounts.Querier, gone store.AccountID) error {
	_, err := q.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, mergedTopic+" "+strconv.FormatInt(int64(gone), 10))
	if err != nil {
		return fmt.Errorf("notify the merge of account %d: %w", gone, err)
	}
	return nil
}

// OnAccountsMerged calls merged (on the bus's goroutine: it must not
// block) with each account a link on any node deleted, and missed each
// time the bus listens, having missed what was sent while it did not;
// see store.MergeWatcher.
func (s *Store) OnAccountsMerged(merged func(gone store.AccountID), missed func()) (stop func()) {
	stopMerged := s.bus.Subscribe(mergedTopic, func(payload []byte) {
		id, err := strconv.ParseInt(string(payload), 10, 64)
		if err != nil || id <= 0 {
			s.log.Warn("db: a merge's notice names no account", "payload", string(payload))
			return
		}
		merged(store.AccountID(id))
	})
	stopMissed := s.bus.OnListening(missed)
	return func() {
		stopMerged()
		stopMissed()
	}
}

// GoneAccounts returns those of ids that are no account now; see
// store.MergeWatcher.
func (s *Store) GoneAccounts(ctx context.Context, ids []store.AccountID) ([]store.AccountID, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	asked := make([]int64, len(ids))
	for i, id := range ids {
		asked[i] = int64(id)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT asked.id FROM unnest($1::bigint[]) AS asked(id)
		WHERE NOT EXISTS (SELECT 1 FROM players p WHERE p.id = asked.id)`, asked)
	if err != nil {
		return nil, fmt.Errorf("gone accounts: %w", err)
	}
	gone, err := pgx.CollectRows(rows, pgx.RowTo[store.AccountID])
	if err != nil {
		return nil, fmt.Errorf("gone accounts: %w", err)
	}
	return gone, nil
}
