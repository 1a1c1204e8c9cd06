package moderation

import (
	"context"
	"fmt"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// inForce is the SQL of a ban of bans x in force at $N.
func inForce(n string) string {
	return `x.lifted_at IS NULL AND (x.expires_at = 0 OR x.expires_at > $` + n + `)`
}

// bansOfPlayer is the SQL of a ban of bans x that holds for players p:
// of the player, or of one of its keys.
const bansOfPlayer = `((x.kind = 'player' AND x.player_id = p.id) OR (x.kind = 'key' AND x.target IN (SELECT k.fingerprint FROM player_keys k WHERE k.player_id = p.id)))`

// Ban stores a ban; see store.Moderator.
func (m Moderator[T]) Ban(ctx context.Context, a store.Action, b store.BanSpec) (store.Ban, error) {
	var out store.Ban
	err := m.write(ctx, func(ctx context.Context, tx Querier, now int64) error {
		// Whom the ban shuts out: a player, or the player of a key.
		var banned int64
		switch b.Kind {
		case store.BanPlayer:
			if err := playerExists(ctx, tx, b.PlayerID); err != nil {
				return err
			}
			banned = b.PlayerID
		case store.BanKey:
			err := tx.QueryRow(ctx, `SELECT player_id FROM player_keys WHERE fingerprint = $1`, b.Target).Scan(&banned)
			if err != nil && !noRows(err) {
				return err
			}
		}
		if banned != 0 {
			if banned == a.ActorID {
				return reject(store.ErrSelf)
			}
			// An admin can be banned while another admin, not banned,
			// remains to lift it.
			var admin bool
			var others int
			err := tx.QueryRow(ctx, `
				SELECT EXISTS (SELECT 1 FROM admins WHERE player_id = $1),
				       (SELECT count(*) FROM admins d JOIN players p ON p.id = d.player_id
				        WHERE d.player_id <> $1 AND NOT EXISTS (
				            SELECT 1 FROM bans x WHERE `+inForce("2")+` AND `+bansOfPlayer+`))`,
				banned, now).Scan(&admin, &others)
			if err != nil {
				return err
			}
			if admin && others == 0 {
				return reject(store.ErrLastAdmin)
			}
		}
		if ok, err := exists(ctx, tx, `
			SELECT EXISTS (SELECT 1 FROM bans x WHERE x.kind = $1 AND x.target = $2 AND `+inForce("3")+`)`,
			string(b.Kind), b.Target, now); err != nil {
			return err
		} else if ok {
			return reject(store.ErrExists)
		}
		// An expired ban of the target is lifted by its end, so that the
		// new one is the target's one unlifted ban.
		if _, err := tx.Exec(ctx, `
			UPDATE bans SET lifted_at = expires_at, lifted_by = 'expiry'
			WHERE kind = $1 AND target = $2 AND lifted_at IS NULL`, string(b.Kind), b.Target); err != nil {
			return err
		}
		var until int64
		if !b.Until.IsZero() {
			until = b.Until.UnixMicro()
		}
		var id int64
		err := tx.QueryRow(ctx, `
			INSERT INTO bans (kind, target, player_id, reason, show_reason, created_by, created_at, expires_at)
			VALUES ($1, $2, nullif(CAST($3 AS bigint), 0), $4, $5, $6, $7, $8) RETURNING id`,
			string(b.Kind), b.Target, banned, a.Reason, b.ShowReason, a.Actor, now, until).Scan(&id)
		if err != nil {
			return err
		}
		out = store.Ban{ID: id, Kind: b.Kind, Target: b.Target, PlayerID: banned, Reason: a.Reason,
			ShowReason: b.ShowReason, By: a.Actor, At: time.UnixMicro(now), Until: b.Until}
		if banned != 0 {
			if err := tx.QueryRow(ctx, `SELECT name FROM players WHERE id = $1`, banned).Scan(&out.Name); err != nil {
				return err
			}
		}
		if err := audit(ctx, tx, now, a, "ban", store.BanTarget(b.Kind, b.Target), banned, store.BanDetail(b)); err != nil {
			return err
		}
		return m.cfg.BansChanged(ctx, tx)
	})
	if err != nil {
		return store.Ban{}, fmt.Errorf("ban %s: %w", store.BanTarget(b.Kind, b.Target), err)
	}
	return out, nil
}

// Unban lifts a target's ban.
func (m Moderator[T]) Unban(ctx context.Context, a store.Action, kind store.BanKind, target string) (store.Ban, error) {
	var out store.Ban
	err := m.write(ctx, func(ctx context.Context, tx Querier, now int64) error {
		row := tx.QueryRow(ctx, `SELECT `+store.BanColumns+` FROM bans b LEFT JOIN players p ON p.id = b.player_id
			WHERE b.kind = $1 AND b.target = $2 AND b.lifted_at IS NULL AND (b.expires_at = 0 OR b.expires_at > $3)`,
			string(kind), target, now)
		if err := store.ScanBan(row, &out); noRows(err) {
			return reject(store.ErrNotFound)
		} else if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE bans SET lifted_at = $1, lifted_by = $2 WHERE id = $3`, now, a.Actor, out.ID); err != nil {
			return err
		}
		if err := audit(ctx, tx, now, a, "unban", store.BanTarget(kind, target), out.PlayerID, ""); err != nil {
			return err
		}
		return m.cfg.BansChanged(ctx, tx)
	})
	if err != nil {
		return store.Ban{}, fmt.Errorf("unban %s: %w", store.BanTarget(kind, target), err)
	}
	return out, nil
}

func (m Moderator[T]) queryBans(ctx context.Context, where string, args ...any) ([]store.Ban, error) {
	rows, err := m.read.Query(ctx, `SELECT `+store.BanColumns+` FROM bans b LEFT JOIN players p ON p.id = b.player_id
		WHERE `+where+` ORDER BY b.id DESC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Ban
	for rows.Next() {
		var b store.Ban
		if err := store.ScanBan(rows, &b); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// Bans lists the bans in force at now, a player's with its account's
// keys: one statement, so that the keys are the account's as the bans
// are read (a ban row for each key, one after another).
func (m Moderator[T]) Bans(ctx context.Context, now time.Time) ([]store.Ban, error) {
	rows, err := m.read.Query(ctx, `SELECT `+store.BanColumns+`, coalesce(k.fingerprint, '') FROM bans b
		LEFT JOIN players p ON p.id = b.player_id
		LEFT JOIN player_keys k ON b.kind = 'player' AND k.player_id = b.player_id
		WHERE b.lifted_at IS NULL AND (b.expires_at = 0 OR b.expires_at > $1)
		ORDER BY b.id DESC, k.fingerprint`, now.UnixMicro())
	if err != nil {
		return nil, fmt.Errorf("bans: %w", err)
	}
	defer rows.Close()
	var out []store.Ban
	for rows.Next() {
		var b store.Ban
		var key string
		if err := store.ScanBan(rows, &b, &key); err != nil {
			return nil, fmt.Errorf("bans: %w", err)
		}
		if n := len(out); n > 0 && out[n-1].ID == b.ID {
			out[n-1].Keys = append(out[n-1].Keys, key)
			continue
		}
		if key != "" {
			b.Keys = []string{key}
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("bans: %w", err)
	}
	return out, nil
}
