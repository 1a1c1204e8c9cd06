package moderation

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/accounts"
)

// FindPlayer resolves an admin's reference to a player (store.ParsePlayerRef).
func (m Moderator[T]) FindPlayer(ctx context.Context, ref string) (store.Player, error) {
	id, fp, name := store.ParsePlayerRef(ref)
	query, args := `SELECT `+store.PlayerColumns+` FROM players p WHERE p.name = $1 OR p.name_key = $2 LIMIT 2`, []any{name, store.NameKey(name)}
	switch {
	case id != 0:
		query, args = `SELECT `+store.PlayerColumns+` FROM players p WHERE p.id = $1`, []any{id}
	case fp != "":
		query, args = `SELECT `+store.PlayerColumns+` FROM players p WHERE p.id = (SELECT player_id FROM player_keys WHERE fingerprint = $1)`, []any{fp}
	}
	rows, err := m.read.Query(ctx, query, args...)
	if err != nil {
		return store.Player{}, fmt.Errorf("find player %q: %w", ref, err)
	}
	defer rows.Close()
	var found []store.Player
	for rows.Next() {
		var p store.Player
		if err := store.ScanPlayer(rows, &p); err != nil {
			return store.Player{}, fmt.Errorf("find player %q: %w", ref, err)
		}
		found = append(found, p)
	}
	if err := rows.Err(); err != nil {
		return store.Player{}, fmt.Errorf("find player %q: %w", ref, err)
	}
	return store.OnePlayer(ref, found)
}

// infoColumns are the columns of store.ScanPlayerInfo, of players p, with
// the time the bans are in force at as $1.
const infoColumns = store.PlayerColumns + `,
	(SELECT count(*) FROM games g WHERE g.player_id = p.id),
	EXISTS (SELECT 1 FROM admins a WHERE a.player_id = p.id),
	p.hidden,
	EXISTS (SELECT 1 FROM bans x WHERE x.lifted_at IS NULL AND (x.expires_at = 0 OR x.expires_at > $1) AND ` + bansOfPlayer + `),
	p.name_locked_until`

// SearchPlayers lists players by name or fingerprint.
func (m Moderator[T]) SearchPlayers(ctx context.Context, text string, limit int) ([]store.PlayerInfo, error) {
	pos := m.cfg.Position
	rows, err := m.read.Query(ctx, `SELECT `+infoColumns+` FROM players p
		WHERE $2 = '' OR `+pos+`(lower(p.name), lower($2)) > 0 OR EXISTS (SELECT 1 FROM player_keys k WHERE k.player_id = p.id AND `+pos+`(k.fingerprint, $2) > 0)
		ORDER BY p.last_seen DESC, p.id DESC LIMIT $3`, time.Now().UnixMicro(), text, limit)
	if err != nil {
		return nil, fmt.Errorf("search players %q: %w", text, err)
	}
	defer rows.Close()
	var out []store.PlayerInfo
	for rows.Next() {
		var in store.PlayerInfo
		if err := store.ScanPlayerInfo(rows, &in); err != nil {
			return nil, fmt.Errorf("search players %q: %w", text, err)
		}
		out = append(out, in)
	}
	return out, rows.Err()
}

// PlayerDetail is what an admin is shown of a player.
func (m Moderator[T]) PlayerDetail(ctx context.Context, playerID int64) (store.PlayerDetail, error) {
	var d store.PlayerDetail
	err := store.ScanPlayerInfo(m.read.QueryRow(ctx, `SELECT `+infoColumns+` FROM players p WHERE p.id = $2`, time.Now().UnixMicro(), playerID), &d.PlayerInfo)
	if noRows(err) {
		return d, fmt.Errorf("player #%d: %w", playerID, store.ErrNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("player #%d: %w", playerID, err)
	}
	if d.Keys, err = accounts.Keys(ctx, m.read, store.AccountID(playerID)); err != nil {
		return d, err
	}
	if d.Names, err = accounts.Names(ctx, m.read, store.AccountID(playerID)); err != nil {
		return d, err
	}
	if d.Bans, err = m.queryBans(ctx, `b.player_id = $1 OR (b.kind = 'key' AND b.target IN (SELECT fingerprint FROM player_keys WHERE player_id = $1))`, playerID); err != nil {
		return d, fmt.Errorf("bans of player #%d: %w", playerID, err)
	}
	rows, err := m.read.Query(ctx, `SELECT id FROM games WHERE player_id = $1 AND hidden ORDER BY id`, playerID)
	if err != nil {
		return d, fmt.Errorf("hidden games of player #%d: %w", playerID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return d, err
		}
		d.HiddenGames = append(d.HiddenGames, id)
	}
	if err := rows.Err(); err != nil {
		return d, err
	}
	d.Actions, err = m.queryAudit(ctx, `player_id = $1`, store.MaxDetailRows, playerID)
	return d, err
}

// queryAudit lists the last limit audit rows where holds, oldest first.
func (m Moderator[T]) queryAudit(ctx context.Context, where string, limit int, args ...any) ([]store.AuditEntry, error) {
	rows, err := m.read.Query(ctx, `SELECT `+store.AuditColumns+` FROM audit WHERE `+where+` ORDER BY id DESC LIMIT `+strconv.Itoa(limit), args...)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	defer rows.Close()
	var out []store.AuditEntry
	for rows.Next() {
		var e store.AuditEntry
		if err := store.ScanAudit(rows, &e); err != nil {
			return nil, fmt.Errorf("audit: %w", err)
		}
		out = append(out, e)
	}
	slices.Reverse(out)
	return out, rows.Err()
}

// Audit lists the audit log from since on.
func (m Moderator[T]) Audit(ctx context.Context, since time.Time, limit int) ([]store.AuditEntry, error) {
	return m.queryAudit(ctx, `at >= $1`, max(limit, 1), since.UnixMicro())
}
