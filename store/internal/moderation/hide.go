package moderation

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ssh2048/ssh2048/store"
)

// rebest recomputes the free-play bests of a player's boards in tx, after
// games of theirs were hidden or put back: the best of each board is its
// best visible game, or none.
func rebest(ctx context.Context, tx Querier, playerID int64) error {
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
func (m Moderator[T]) HideGame(ctx context.Context, a store.Action, gameID int64) error {
	return m.setGameHidden(ctx, a, gameID, true, func(ctx context.Context, tx Querier, now int64) (int64, error) {
		var playerID, updated int64
		var hidden bool
		var ended *int64
		err := tx.QueryRow(ctx, `SELECT player_id, hidden, updated_at, ended_at FROM games WHERE id = $1`, gameID).
			Scan(&playerID, &hidden, &updated, &ended)
		switch {
		case noRows(err):
			return 0, reject(store.ErrNotFound)
		case err != nil:
			return 0, err
		case hidden:
			return 0, reject(store.ErrExists)
		case ended == nil && now-updated < store.InPlayFor.Microseconds():
			return 0, reject(store.ErrInPlay)
		}
		return playerID, nil
	})
}

// UnhideGame puts a hidden game back.
func (m Moderator[T]) UnhideGame(ctx context.Context, a store.Action, gameID int64) error {
	return m.setGameHidden(ctx, a, gameID, false, func(ctx context.Context, tx Querier, _ int64) (int64, error) {
		var playerID int64
		var hidden, byPlayer bool
		err := tx.QueryRow(ctx, `SELECT player_id, hidden, hidden_by_player FROM games WHERE id = $1`, gameID).
			Scan(&playerID, &hidden, &byPlayer)
		switch {
		case noRows(err), err == nil && !hidden:
			return 0, reject(store.ErrNotFound)
		case err != nil:
			return 0, err
		case byPlayer:
			return 0, reject(fmt.Errorf("%w: its player is hidden", store.ErrInvalid))
		}
		return playerID, nil
	})
}

// setGameHidden hides or puts back a game once check, which rejects what
// cannot be done, has found its player.
func (m Moderator[T]) setGameHidden(ctx context.Context, a store.Action, gameID int64, hide bool,
	check func(ctx context.Context, tx Querier, now int64) (playerID int64, err error)) error {
	action := store.HideAction(hide)
	err := m.write(ctx, func(ctx context.Context, tx Querier, now int64) error {
		playerID, err := check(ctx, tx, now)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE games SET hidden = $1 WHERE id = $2`, hide, gameID); err != nil {
			return err
		}
		if err := rebest(ctx, tx, playerID); err != nil {
			return err
		}
		if err := audit(ctx, tx, now, a, action, "game "+strconv.FormatInt(gameID, 10), playerID, ""); err != nil {
			return err
		}
		return m.cfg.HiddenChanged(ctx, tx, 0, gameID, hide)
	})
	if err != nil {
		return fmt.Errorf("%s game %d: %w", action, gameID, err)
	}
	m.cfg.Hidden(0, gameID, hide)
	return nil
}

// HidePlayer hides a player and their games.
func (m Moderator[T]) HidePlayer(ctx context.Context, a store.Action, playerID int64) error {
	return m.setPlayerHidden(ctx, a, playerID, true)
}

// UnhidePlayer puts a hidden player's games back.
func (m Moderator[T]) UnhidePlayer(ctx context.Context, a store.Action, playerID int64) error {
	return m.setPlayerHidden(ctx, a, playerID, false)
}

func (m Moderator[T]) setPlayerHidden(ctx context.Context, a store.Action, playerID int64, hide bool) error {
	action := store.HideAction(hide)
	err := m.write(ctx, func(ctx context.Context, tx Querier, now int64) error {
		ids, err := subjectPlayers(ctx, tx, playerID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			var hidden bool
			err := tx.QueryRow(ctx, `SELECT hidden FROM players WHERE id = $1`, id).Scan(&hidden)
			switch {
			case noRows(err):
				return reject(store.ErrNotFound)
			case err != nil:
				return err
			case hidden == hide && hide:
				return reject(store.ErrExists)
			case hidden == hide:
				return reject(store.ErrNotFound)
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
		if err := audit(ctx, tx, now, a, action, store.PlayerTarget(playerID), playerID, ""); err != nil {
			return err
		}
		return m.cfg.HiddenChanged(ctx, tx, playerID, 0, hide)
	})
	if err != nil {
		return fmt.Errorf("%s player #%d: %w", action, playerID, err)
	}
	m.cfg.Hidden(playerID, 0, hide)
	return nil
}
