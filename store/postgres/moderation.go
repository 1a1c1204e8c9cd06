package postgres

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/accounts"
)

// The writes of store.Moderator run in transactions of their own on the
// read pool, not in the writer's groups (a refused one would spoil a
// group of moves), each under one advisory lock that every node takes
// for them: the checks a write makes (the last admin, a ban already in
// force) hold until its change and its audit row commit together, on
// every node at once.

// modTx runs fn in a transaction of its own under the moderation lock,
// with the time in unix microseconds.
func (s *Store) modTx(ctx context.Context, fn func(ctx context.Context, tx pgx.Tx, now int64) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('ssh2048 moderation'))`); err != nil {
			return err
		}
		return fn(ctx, tx, time.Now().UnixMicro())
	})
}

// bansTopic is the bus topic of a change of bans: every node's ban list
// (package moderation) reads the bans again at once.
const bansTopic = "bans"

// notifyBans tells every node, when tx commits, that the bans changed.
func notifyBans(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, bansTopic+" ")
	return err
}

// OnBansChanged calls fn (on the bus's goroutine: it must not block)
// whenever any node changes the bans; see store.BanWatcher.
func (s *Store) OnBansChanged(fn func()) (stop func()) {
	return s.bus.Subscribe(bansTopic, func([]byte) { fn() })
}

// subjectPlayers is the players rows an action on player id applies to:
// one, the account (a player is an account, whatever keys it has; see
// docs/accounts.md). Kept as the one place an action finds its rows.
func subjectPlayers(_ context.Context, _ pgx.Tx, id int64) ([]int64, error) {
	return []int64{id}, nil
}

// audit writes the audit row of an action in its transaction.
func audit(ctx context.Context, tx pgx.Tx, now int64, a store.Action, action, target string, playerID int64, detail string) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO audit (at, actor, actor_id, action, target, player_id, reason, detail)
		VALUES ($1, $2, nullif($3::bigint, 0), $4, $5, nullif($6::bigint, 0), $7, $8)`,
		now, a.Actor, a.ActorID, action, target, playerID, a.Reason, detail)
	return err
}

// exists runs a query of one boolean in tx.
func exists(ctx context.Context, tx pgx.Tx, query string, args ...any) (bool, error) {
	var ok bool
	err := tx.QueryRow(ctx, query, args...).Scan(&ok)
	return ok, err
}

// playerExists rejects an action on a player that is not stored.
func playerExists(ctx context.Context, tx pgx.Tx, id int64) error {
	ok, err := exists(ctx, tx, `SELECT EXISTS (SELECT 1 FROM players WHERE id = $1)`, id)
	if err == nil && !ok {
		err = (fmt.Errorf("player #%d: %w", id, store.ErrNotFound))
	}
	return err
}

// SyncAdminKeys makes keys the file's admins; see store.Moderator.
func (s *Store) SyncAdminKeys(ctx context.Context, keys []store.AdminKey) error {
	err := s.modTx(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		fps := []string{}
		for _, k := range keys {
			id, err := accounts.KeyAccount(ctx, pgQuerier{tx}, now, k.Fingerprint, k.KeyType, k.Comment)
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
		_, err := tx.Exec(ctx, `
			DELETE FROM admins WHERE source = 'file'
			AND player_id NOT IN (SELECT player_id FROM player_keys WHERE fingerprint = ANY($1))`, fps)
		return err
	})
	if err != nil {
		return fmt.Errorf("sync admin keys: %w", err)
	}
	return nil
}

// IsAdmin reports whether the player is an admin.
func (s *Store) IsAdmin(ctx context.Context, playerID int64) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM admins WHERE player_id = $1)`, playerID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("is player #%d an admin: %w", playerID, err)
	}
	return ok, nil
}

// Admins lists the admins, oldest first.
func (s *Store) Admins(ctx context.Context) ([]store.Admin, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT p.id, p.fingerprint, p.key_type, p.name, p.first_seen, p.last_seen, a.source = 'file', a.granted_at
		FROM admins a JOIN players p ON p.id = a.player_id ORDER BY a.granted_at, p.id`)
	if err != nil {
		return nil, fmt.Errorf("admins: %w", err)
	}
	defer rows.Close()
	var out []store.Admin
	for rows.Next() {
		var a store.Admin
		var first, last, at int64
		if err := rows.Scan(&a.ID, &a.Fingerprint, &a.KeyType, &a.Name, &first, &last, &a.ByFile, &at); err != nil {
			return nil, fmt.Errorf("admins: %w", err)
		}
		a.FirstSeen, a.LastSeen, a.GrantedAt = time.UnixMicro(first), time.UnixMicro(last), time.UnixMicro(at)
		out = append(out, a)
	}
	return out, rows.Err()
}

// Grant makes a player an admin.
func (s *Store) Grant(ctx context.Context, a store.Action, playerID int64) error {
	err := s.modTx(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		if err := playerExists(ctx, tx, playerID); err != nil {
			return err
		}
		if ok, err := exists(ctx, tx, `SELECT EXISTS (SELECT 1 FROM admins WHERE player_id = $1)`, playerID); err != nil {
			return err
		} else if ok {
			return store.ErrExists
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
func (s *Store) Revoke(ctx context.Context, a store.Action, playerID int64) error {
	err := s.modTx(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		var source string
		err := tx.QueryRow(ctx, `SELECT source FROM admins WHERE player_id = $1`, playerID).Scan(&source)
		switch {
		case noRows(err):
			return store.ErrNotFound
		case err != nil:
			return err
		case source == "file":
			return store.ErrByFile
		}
		var admins int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM admins`).Scan(&admins); err != nil {
			return err
		}
		if admins <= 1 {
			return store.ErrLastAdmin
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

// Ban stores a ban; see store.Moderator.
func (s *Store) Ban(ctx context.Context, a store.Action, b store.BanSpec) (store.Ban, error) {
	var out store.Ban
	err := s.modTx(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
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
				return store.ErrSelf
			}
			// An admin can be banned while another admin, not banned,
			// remains to lift it.
			var admin bool
			var others int
			err := tx.QueryRow(ctx, `
				SELECT EXISTS (SELECT 1 FROM admins WHERE player_id = $1),
				       (SELECT count(*) FROM admins d JOIN players p ON p.id = d.player_id
				        WHERE d.player_id <> $1 AND NOT EXISTS (
				            SELECT 1 FROM bans x WHERE x.lifted_at IS NULL AND (x.expires_at = 0 OR x.expires_at > $2)
				            AND ((x.kind = 'player' AND x.player_id = p.id) OR (x.kind = 'key' AND x.target IN (SELECT k.fingerprint FROM player_keys k WHERE k.player_id = p.id)))))`,
				banned, now).Scan(&admin, &others)
			if err != nil {
				return err
			}
			if admin && others == 0 {
				return store.ErrLastAdmin
			}
		}
		if ok, err := exists(ctx, tx, `
			SELECT EXISTS (SELECT 1 FROM bans WHERE kind = $1 AND target = $2 AND lifted_at IS NULL AND (expires_at = 0 OR expires_at > $3))`,
			string(b.Kind), b.Target, now); err != nil {
			return err
		} else if ok {
			return store.ErrExists
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
			until = micros(b.Until)
		}
		err := tx.QueryRow(ctx, `
			INSERT INTO bans (kind, target, player_id, reason, show_reason, created_by, created_at, expires_at)
			VALUES ($1, $2, nullif($3::bigint, 0), $4, $5, $6, $7, $8) RETURNING id`,
			string(b.Kind), b.Target, banned, a.Reason, b.ShowReason, a.Actor, now, until).Scan(&out.ID)
		if err != nil {
			return err
		}
		out = store.Ban{ID: out.ID, Kind: b.Kind, Target: b.Target, PlayerID: banned, Reason: a.Reason,
			ShowReason: b.ShowReason, By: a.Actor, At: time.UnixMicro(now), Until: b.Until}
		if banned != 0 {
			if err := tx.QueryRow(ctx, `SELECT name FROM players WHERE id = $1`, banned).Scan(&out.Name); err != nil {
				return err
			}
		}
		if err := audit(ctx, tx, now, a, "ban", store.BanTarget(b.Kind, b.Target), banned, store.BanDetail(b)); err != nil {
			return err
		}
		return notifyBans(ctx, tx)
	})
	if err != nil {
		return store.Ban{}, fmt.Errorf("ban %s: %w", store.BanTarget(b.Kind, b.Target), err)
	}
	return out, nil
}

// Unban lifts a target's ban.
func (s *Store) Unban(ctx context.Context, a store.Action, kind store.BanKind, target string) (store.Ban, error) {
	var out store.Ban
	err := s.modTx(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		row := tx.QueryRow(ctx, `SELECT `+store.BanColumns+` FROM bans b LEFT JOIN players p ON p.id = b.player_id
			WHERE b.kind = $1 AND b.target = $2 AND b.lifted_at IS NULL AND (b.expires_at = 0 OR b.expires_at > $3)`,
			string(kind), target, now)
		if err := store.ScanBan(row, &out); noRows(err) {
			return store.ErrNotFound
		} else if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE bans SET lifted_at = $1, lifted_by = $2 WHERE id = $3`, now, a.Actor, out.ID); err != nil {
			return err
		}
		if err := audit(ctx, tx, now, a, "unban", store.BanTarget(kind, target), out.PlayerID, ""); err != nil {
			return err
		}
		return notifyBans(ctx, tx)
	})
	if err != nil {
		return store.Ban{}, fmt.Errorf("unban %s: %w", store.BanTarget(kind, target), err)
	}
	return out, nil
}

func (s *Store) queryBans(ctx context.Context, where string, args ...any) ([]store.Ban, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+store.BanColumns+` FROM bans b LEFT JOIN players p ON p.id = b.player_id
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

// Bans lists the bans in force at now.
func (s *Store) Bans(ctx context.Context, now time.Time) ([]store.Ban, error) {
	out, err := s.queryBans(ctx, `b.lifted_at IS NULL AND (b.expires_at = 0 OR b.expires_at > $1)`, micros(now))
	if err != nil {
		return nil, fmt.Errorf("bans: %w", err)
	}
	return out, nil
}

// Rename gives a player a name through the names' table, as a claim is
// (store.ErrNameTaken), and locks it against the player's own.
func (s *Store) Rename(ctx context.Context, a store.Action, playerID int64, name string, lockedUntil time.Time) (store.Player, error) {
	clean, err := store.CheckName(name)
	if err != nil {
		return store.Player{}, fmt.Errorf("rename player #%d: %w", playerID, err)
	}
	var p store.Player
	err = s.modTx(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		if err := playerExists(ctx, tx, playerID); err != nil {
			return err
		}
		var lock int64
		if !lockedUntil.IsZero() {
			lock = micros(lockedUntil)
		}
		old, err := accounts.AdminRename(ctx, pgQuerier{tx}, now, playerID, clean, lock)
		if err != nil {
			return err
		}
		var first, last int64
		err = tx.QueryRow(ctx, `SELECT id, fingerprint, key_type, name, first_seen, last_seen FROM players WHERE id = $1`, playerID).
			Scan(&p.ID, &p.Fingerprint, &p.KeyType, &p.Name, &first, &last)
		if err != nil {
			return err
		}
		p.FirstSeen, p.LastSeen = time.UnixMicro(first), time.UnixMicro(last)
		return audit(ctx, tx, now, a, "rename", store.PlayerTarget(playerID), playerID, store.RenameDetail(old, clean, lockedUntil))
	})
	if err != nil {
		return store.Player{}, fmt.Errorf("rename player #%d: %w", playerID, err)
	}
	return p, nil
}

// rebest recomputes the free-play bests of a player's boards in tx, after
// games of theirs were hidden or put back: the best of each board is its
// best visible game, or none.
func rebest(ctx context.Context, tx pgx.Tx, playerID int64) error {
	if _, err := tx.Exec(ctx, `DELETE FROM player_bests WHERE player_id = $1`, playerID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
		SELECT player_id, size, kind, id, score, reached_at FROM (
			SELECT player_id, size, kind, id, score, reached_at,
			       row_number() OVER (PARTITION BY size, kind ORDER BY score DESC, reached_at, id) AS n
			FROM games WHERE player_id = $1 AND contest = '' AND NOT hidden AND moves > 0) AS ranked
		WHERE n = 1`, playerID)
	return err
}

// HideGame takes a game off the boards.
func (s *Store) HideGame(ctx context.Context, a store.Action, gameID int64) error {
	err := s.modTx(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		var playerID, updated int64
		var hidden bool
		var ended *int64
		err := tx.QueryRow(ctx, `SELECT player_id, hidden, updated_at, ended_at FROM games WHERE id = $1`, gameID).
			Scan(&playerID, &hidden, &updated, &ended)
		switch {
		case noRows(err):
			return store.ErrNotFound
		case err != nil:
			return err
		case hidden:
			return store.ErrExists
		case ended == nil && now-updated < store.InPlayFor.Microseconds():
			return store.ErrInPlay
		}
		if _, err := tx.Exec(ctx, `UPDATE games SET hidden = true WHERE id = $1`, gameID); err != nil {
			return err
		}
		if err := rebest(ctx, tx, playerID); err != nil {
			return err
		}
		return audit(ctx, tx, now, a, "hide", "game "+strconv.FormatInt(gameID, 10), playerID, "")
	})
	if err != nil {
		return fmt.Errorf("hide game %d: %w", gameID, err)
	}
	s.ranks.Hidden(0, gameID, true)
	return nil
}

// UnhideGame puts a hidden game back.
func (s *Store) UnhideGame(ctx context.Context, a store.Action, gameID int64) error {
	err := s.modTx(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		var playerID int64
		var hidden, byPlayer bool
		err := tx.QueryRow(ctx, `SELECT player_id, hidden, hidden_by_player FROM games WHERE id = $1`, gameID).
			Scan(&playerID, &hidden, &byPlayer)
		switch {
		case noRows(err), err == nil && !hidden:
			return store.ErrNotFound
		case err != nil:
			return err
		case byPlayer:
			return fmt.Errorf("%w: its player is hidden", store.ErrInvalid)
		}
		if _, err := tx.Exec(ctx, `UPDATE games SET hidden = false WHERE id = $1`, gameID); err != nil {
			return err
		}
		if err := rebest(ctx, tx, playerID); err != nil {
			return err
		}
		return audit(ctx, tx, now, a, "unhide", "game "+strconv.FormatInt(gameID, 10), playerID, "")
	})
	if err != nil {
		return fmt.Errorf("unhide game %d: %w", gameID, err)
	}
	s.ranks.Hidden(0, gameID, false)
	return nil
}

// HidePlayer hides a player and their games.
func (s *Store) HidePlayer(ctx context.Context, a store.Action, playerID int64) error {
	return s.setPlayerHidden(ctx, a, playerID, true)
}

// UnhidePlayer puts a hidden player's games back.
func (s *Store) UnhidePlayer(ctx context.Context, a store.Action, playerID int64) error {
	return s.setPlayerHidden(ctx, a, playerID, false)
}

func (s *Store) setPlayerHidden(ctx context.Context, a store.Action, playerID int64, hide bool) error {
	action := store.HideAction(hide)
	err := s.modTx(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		ids, err := subjectPlayers(ctx, tx, playerID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			var hidden bool
			err := tx.QueryRow(ctx, `SELECT hidden FROM players WHERE id = $1`, id).Scan(&hidden)
			switch {
			case noRows(err):
				return store.ErrNotFound
			case err != nil:
				return err
			case hidden == hide && hide:
				return store.ErrExists
			case hidden == hide:
				return store.ErrNotFound
			}
		}
		for _, id := range ids {
			if _, err := tx.Exec(ctx, `UPDATE players SET hidden = $1 WHERE id = $2`, hide, id); err != nil {
				return err
			}
			q := `UPDATE games SET hidden = true, hidden_by_player = true WHERE player_id = $1 AND NOT hidden`
			if !hide {
				q = `UPDATE games SET hidden = false, hidden_by_player = false WHERE player_id = $1 AND hidden_by_player`
			}
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
			if err := rebest(ctx, tx, id); err != nil {
				return err
			}
		}
		return audit(ctx, tx, now, a, action, store.PlayerTarget(playerID), playerID, "")
	})
	if err != nil {
		return fmt.Errorf("%s player #%d: %w", action, playerID, err)
	}
	s.ranks.Hidden(playerID, 0, hide)
	return nil
}

// FindPlayer resolves an admin's reference to a player (store.ParsePlayerRef).
func (s *Store) FindPlayer(ctx context.Context, ref string) (store.Player, error) {
	id, fp, name := store.ParsePlayerRef(ref)
	query, args := `SELECT `+store.PlayerColumns+` FROM players p WHERE p.name = $1 OR p.name_key = $2 LIMIT 2`, []any{name, store.NameKey(name)}
	switch {
	case id != 0:
		query, args = `SELECT `+store.PlayerColumns+` FROM players p WHERE p.id = $1`, []any{id}
	case fp != "":
		query, args = `SELECT `+store.PlayerColumns+` FROM players p WHERE p.id = (SELECT player_id FROM player_keys WHERE fingerprint = $1)`, []any{fp}
	}
	rows, err := s.pool.Query(ctx, query, args...)
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

const infoColumns = store.PlayerColumns + `,
	(SELECT count(*) FROM games g WHERE g.player_id = p.id),
	EXISTS (SELECT 1 FROM admins a WHERE a.player_id = p.id),
	p.hidden,
	EXISTS (SELECT 1 FROM bans x WHERE x.lifted_at IS NULL AND (x.expires_at = 0 OR x.expires_at > $1)
	        AND ((x.kind = 'player' AND x.player_id = p.id) OR (x.kind = 'key' AND x.target IN (SELECT k.fingerprint FROM player_keys k WHERE k.player_id = p.id)))),
	p.name_locked_until`

// SearchPlayers lists players by name or fingerprint.
func (s *Store) SearchPlayers(ctx context.Context, text string, limit int) ([]store.PlayerInfo, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+infoColumns+` FROM players p
		WHERE $2 = '' OR strpos(lower(p.name), lower($2)) > 0 OR EXISTS (SELECT 1 FROM player_keys k WHERE k.player_id = p.id AND strpos(k.fingerprint, $2) > 0)
		ORDER BY p.last_seen DESC, p.id DESC LIMIT $3`, micros(time.Now()), text, limit)
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
func (s *Store) PlayerDetail(ctx context.Context, playerID int64) (store.PlayerDetail, error) {
	var d store.PlayerDetail
	err := store.ScanPlayerInfo(s.pool.QueryRow(ctx, `SELECT `+infoColumns+` FROM players p WHERE p.id = $2`, micros(time.Now()), playerID), &d.PlayerInfo)
	if noRows(err) {
		return d, fmt.Errorf("player #%d: %w", playerID, store.ErrNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("player #%d: %w", playerID, err)
	}
	if d.Keys, err = accounts.Keys(ctx, pgQuerier{s.pool}, store.AccountID(playerID)); err != nil {
		return d, err
	}
	if d.Names, err = accounts.Names(ctx, pgQuerier{s.pool}, store.AccountID(playerID)); err != nil {
		return d, err
	}
	if d.Bans, err = s.queryBans(ctx, `b.player_id = $1 OR (b.kind = 'key' AND b.target IN (SELECT fingerprint FROM player_keys WHERE player_id = $1))`, playerID); err != nil {
		return d, fmt.Errorf("bans of player #%d: %w", playerID, err)
	}
	rows, err := s.pool.Query(ctx, `SELECT id FROM games WHERE player_id = $1 AND hidden ORDER BY id`, playerID)
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
	d.Actions, err = s.queryAudit(ctx, `player_id = $1`, store.MaxDetailRows, playerID)
	return d, err
}

// queryAudit lists the last limit audit rows where holds, oldest first.
func (s *Store) queryAudit(ctx context.Context, where string, limit int, args ...any) ([]store.AuditEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+store.AuditColumns+` FROM audit WHERE `+where+` ORDER BY id DESC LIMIT `+strconv.Itoa(limit), args...)
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
func (s *Store) Audit(ctx context.Context, since time.Time, limit int) ([]store.AuditEntry, error) {
	return s.queryAudit(ctx, `at >= $1`, max(limit, 1), micros(since))
}

func micros(t time.Time) int64 { return t.UnixMicro() }
