// Package moderation is the SQL of store.Moderator, written once for both
// stores: the tables (migration 00011) and the statements are the same in
// SQLite and PostgreSQL, down to a function name (Config.Position), so
// each store gives this package its transaction or pool as an
// accounts.Querier and embeds Moderator.
//
// Every write reads and checks before it writes, so that what it refuses
// it refuses with groupcommit.Reject before anything is written: in
// SQLite's group-commit writer the rest of its group goes on; PostgreSQL
// runs these writes in transactions of their own, under one lock for
// every node, where a rejection is an error like another. Each write
// stores its audit row in the same transaction as its change.
package moderation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/accounts"
	"github.com/ssh2048/ssh2048/store/internal/groupcommit"
)

// Querier is a store's transaction or read pool, as package accounts
// takes it: statements use $1, $2 … placeholders.
type Querier = accounts.Querier

// Config is what differs between the stores.
type Config struct {
	// Position is the SQL function that finds a string in another,
	// (haystack, needle) → its 1-based place or 0: SQLite's instr,
	// PostgreSQL's strpos.
	Position string
	// BansChanged, if not nil, runs in the transaction of every change
	// of the bans: PostgreSQL tells the other nodes when it commits.
	BansChanged func(ctx context.Context, tx Querier) error
	// Hidden, if not nil, is told of each hide or unhide once it has
	// committed: one game (playerID 0), or every game of a player
	// (gameID 0). The store's ranks in memory follow it.
	Hidden func(playerID, gameID int64, hide bool)
	// HiddenChanged, if not nil, runs in the transaction of every hide
	// or unhide, with Hidden's arguments: PostgreSQL tells the other
	// nodes when it commits, whose ranks follow it too.
	HiddenChanged func(ctx context.Context, tx Querier, playerID, gameID int64, hide bool) error
}

// Moderator is store.Moderator for a store whose moderation writes run in
// transactions of type T: a store embeds it, so that both stores have
// the methods once.
type Moderator[T any] struct {
	do   func(ctx context.Context, fn func(ctx context.Context, tx T, now int64) error) error
	tx   func(T) Querier
	read Querier
	cfg  Config
}

// New returns the methods of a store: do runs a write in a transaction
// (SQLite's group-commit writer, PostgreSQL's transaction under the
// moderation lock), tx gives this package that transaction, read is the
// store's read pool.
func New[T any](do func(ctx context.Context, fn func(ctx context.Context, tx T, now int64) error) error, tx func(T) Querier, read Querier, cfg Config) Moderator[T] {
	if cfg.BansChanged == nil {
		cfg.BansChanged = func(context.Context, Querier) error { return nil }
	}
	if cfg.Hidden == nil {
		cfg.Hidden = func(int64, int64, bool) {}
	}
	if cfg.HiddenChanged == nil {
		cfg.HiddenChanged = func(context.Context, Querier, int64, int64, bool) error { return nil }
	}
	return Moderator[T]{do: do, tx: tx, read: read, cfg: cfg}
}

func (m Moderator[T]) write(ctx context.Context, fn func(ctx context.Context, q Querier, now int64) error) error {
	return m.do(ctx, func(ctx context.Context, tx T, now int64) error { return fn(ctx, m.tx(tx), now) })
}

func reject(err error) error { return groupcommit.Reject(err) }

func noRows(err error) bool { return errors.Is(err, accounts.ErrNoRows) }

// subjectPlayers is the players rows an action on player id applies to:
// one, the account (a player is an account, whatever keys it has; see
// docs/accounts.md). Kept as the one place an action finds its rows.
func subjectPlayers(_ context.Context, _ Querier, id int64) ([]int64, error) {
	return []int64{id}, nil
}

// audit writes the audit row of an action in its transaction.
func audit(ctx context.Context, tx Querier, now int64, a store.Action, action, target string, playerID int64, detail string) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO audit (at, actor, actor_id, action, target, player_id, reason, detail)
		VALUES ($1, $2, nullif(CAST($3 AS bigint), 0), $4, $5, nullif(CAST($6 AS bigint), 0), $7, $8)`,
		now, a.Actor, a.ActorID, action, target, playerID, a.Reason, detail)
	return err
}

// exists runs a query of one boolean.
func exists(ctx context.Context, q Querier, query string, args ...any) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, query, args...).Scan(&ok)
	return ok, err
}

// playerExists rejects an action on a player that is not stored.
func playerExists(ctx context.Context, tx Querier, id int64) error {
	ok, err := exists(ctx, tx, `SELECT EXISTS (SELECT 1 FROM players WHERE id = $1)`, id)
	if err == nil && !ok {
		err = reject(fmt.Errorf("player #%d: %w", id, store.ErrNotFound))
	}
	return err
}

// placeholders is "$from, $from+1 …", n of them.
func placeholders(from, n int) string {
	var s []byte
	for i := range n {
		if i > 0 {
			s = append(s, ", "...)
		}
		s = fmt.Appendf(s, "$%d", from+i)
	}
	return string(s)
}

// SyncAdminKeys makes keys the file's admins; see store.Moderator.
func (m Moderator[T]) SyncAdminKeys(ctx context.Context, keys []store.AdminKey) error {
	err := m.write(ctx, func(ctx context.Context, tx Querier, now int64) error {
		var fps []any
		for _, k := range keys {
			id, err := accounts.KeyAccount(ctx, tx, now, k.Fingerprint, k.KeyType, k.Comment)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `
				INSERT INTO admins (player_id, source, granted_at) VALUES ($1, 'file', $2)
				ON CONFLICT (player_id) DO UPDATE SET source = 'file'`, id, now); err != nil {
				return err
			}
			fps = append(fps, k.Fingerprint)
		}
		// The file's admins are the file's keys, no more: a key taken out
		// of the file is no admin after the next start.
		q := `DELETE FROM admins WHERE source = 'file'`
		if len(fps) > 0 {
			q += ` AND player_id NOT IN (SELECT player_id FROM player_keys WHERE fingerprint IN (` + placeholders(1, len(fps)) + `))`
		}
		_, err := tx.Exec(ctx, q, fps...)
		return err
	})
	if err != nil {
		return fmt.Errorf("sync admin keys: %w", err)
	}
	return nil
}

// IsAdmin reports whether the player is an admin.
func (m Moderator[T]) IsAdmin(ctx context.Context, playerID int64) (bool, error) {
	ok, err := exists(ctx, m.read, `SELECT EXISTS (SELECT 1 FROM admins WHERE player_id = $1)`, playerID)
	if err != nil {
		return false, fmt.Errorf("is player #%d an admin: %w", playerID, err)
	}
	return ok, nil
}

// Admins lists the admins, oldest first.
func (m Moderator[T]) Admins(ctx context.Context) ([]store.Admin, error) {
	rows, err := m.read.Query(ctx, `
		SELECT `+store.PlayerColumns+`, a.source = 'file', a.granted_at
		FROM admins a JOIN players p ON p.id = a.player_id ORDER BY a.granted_at, p.id`)
	if err != nil {
		return nil, fmt.Errorf("admins: %w", err)
	}
	defer rows.Close()
	var out []store.Admin
	for rows.Next() {
		var a store.Admin
		var at int64
		if err := store.ScanPlayer(rows, &a.Player, &a.ByFile, &at); err != nil {
			return nil, fmt.Errorf("admins: %w", err)
		}
		a.GrantedAt = time.UnixMicro(at)
		out = append(out, a)
	}
	return out, rows.Err()
}

// Grant makes a player an admin.
func (m Moderator[T]) Grant(ctx context.Context, a store.Action, playerID int64) error {
	err := m.write(ctx, func(ctx context.Context, tx Querier, now int64) error {
		if err := playerExists(ctx, tx, playerID); err != nil {
			return err
		}
		if ok, err := exists(ctx, tx, `SELECT EXISTS (SELECT 1 FROM admins WHERE player_id = $1)`, playerID); err != nil {
			return err
		} else if ok {
			return reject(store.ErrExists)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO admins (player_id, source, granted_at) VALUES ($1, 'grant', $2)`, playerID, now); err != nil {
			return err
		}
		return audit(ctx, tx, now, a, "grant", store.PlayerTarget(playerID), playerID, "")
	})
	if err != nil {
		return fmt.Errorf("grant admin to player #%d: %w", playerID, err)
	}
	return nil
}

// Revoke ends a granted admin.
func (m Moderator[T]) Revoke(ctx context.Context, a store.Action, playerID int64) error {
	err := m.write(ctx, func(ctx context.Context, tx Querier, now int64) error {
		var source string
		err := tx.QueryRow(ctx, `SELECT source FROM admins WHERE player_id = $1`, playerID).Scan(&source)
		switch {
		case noRows(err):
			return reject(store.ErrNotFound)
		case err != nil:
			return err
		case source == "file":
			return reject(store.ErrByFile)
		}
		var admins int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM admins`).Scan(&admins); err != nil {
			return err
		}
		if admins <= 1 {
			return reject(store.ErrLastAdmin)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM admins WHERE player_id = $1`, playerID); err != nil {
			return err
		}
		return audit(ctx, tx, now, a, "revoke", store.PlayerTarget(playerID), playerID, "")
	})
	if err != nil {
		return fmt.Errorf("revoke admin of player #%d: %w", playerID, err)
	}
	return nil
}

// Rename gives a player a name through the names' table, as a claim is
// (store.ErrNameTaken), and locks it against the player's own.
func (m Moderator[T]) Rename(ctx context.Context, a store.Action, playerID int64, name string, lockedUntil time.Time) (store.Player, error) {
	clean, err := store.CheckName(name)
	if err != nil {
		return store.Player{}, fmt.Errorf("rename player #%d: %w", playerID, err)
	}
	var p store.Player
	err = m.write(ctx, func(ctx context.Context, tx Querier, now int64) error {
		if err := playerExists(ctx, tx, playerID); err != nil {
			return err
		}
		var lock int64
		if !lockedUntil.IsZero() {
			lock = lockedUntil.UnixMicro()
		}
		old, err := accounts.AdminRename(ctx, tx, now, playerID, clean, lock)
		if err != nil {
			return err
		}
		if err := store.ScanPlayer(tx.QueryRow(ctx, `SELECT `+store.PlayerColumns+` FROM players p WHERE p.id = $1`, playerID), &p); err != nil {
			return err
		}
		return audit(ctx, tx, now, a, "rename", store.PlayerTarget(playerID), playerID, store.RenameDetail(old, clean, lockedUntil))
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("rename player #%d: %w", playerID, err)
	}
	return p, nil
}
