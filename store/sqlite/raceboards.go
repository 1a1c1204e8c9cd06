package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/store"
)

// BotRaceBoard ranks the players of races with bots: most wins first,
// then the best score.
func (s *Store) BotRaceBoard(ctx context.Context, limit int) ([]store.BotRaceEntry, error) {
	rows, err := s.read.QueryContext(ctx, `
		SELECT e.player_id, p.name, p.fingerprint, COUNT(*), SUM(e.place = 1), MAX(e.score)
		FROM race_entries e JOIN races r ON r.id = e.race_id JOIN players p ON p.id = e.player_id
		WHERE r.bots = 1 AND NOT p.hidden
		GROUP BY e.player_id
		ORDER BY SUM(e.place = 1) DESC, MAX(e.score) DESC, e.player_id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("bot race board: %w", err)
	}
	defer rows.Close()
	var out []store.BotRaceEntry
	for rows.Next() {
		e := store.BotRaceEntry{Rank: len(out) + 1}
		if err := rows.Scan(&e.PlayerID, &e.Name, &e.Fingerprint, &e.Races, &e.Wins, &e.Best); err != nil {
			return nil, fmt.Errorf("bot race board: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ContestRank returns the player's game of a contest of one size with its
// rank on ContestBoard, and how many games that board has; store.ErrNotFound
// when the player has none.
func (s *Store) ContestRank(ctx context.Context, playerID int64, contest string, size int) (store.Entry, int, error) {
	tx, err := s.read.BeginTx(ctx, nil)
	if err != nil {
		return store.Entry{}, 0, fmt.Errorf("rank in %s: %w", contest, err)
	}
	defer tx.Rollback()
	var e store.Entry
	var reached int64
	var ended sql.NullInt64
	err = tx.QueryRowContext(ctx, `
		SELECT g.player_id, p.name, p.fingerprint, g.score, g.max_tile, g.moves, g.won, g.ended_at, g.id, g.reached_at
		FROM games g JOIN players p ON p.id = g.player_id
		WHERE g.player_id = ? AND g.contest = ? AND g.size = ?
		ORDER BY g.id DESC LIMIT 1`, playerID, contest, size).
		Scan(&e.PlayerID, &e.Name, &e.Fingerprint, &e.Score, &e.MaxTile, &e.Moves, &e.Won, &ended, &e.GameID, &reached)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Entry{}, 0, fmt.Errorf("rank of player %d in %s: %w", playerID, contest, store.ErrNotFound)
	}
	if err != nil {
		return store.Entry{}, 0, fmt.Errorf("rank of player %d in %s: %w", playerID, contest, err)
	}
	e.Ended = timePtr(ended)
	var ahead, total int
	err = tx.QueryRowContext(ctx, `
		SELECT COUNT(*) FILTER (WHERE score > ?3 OR (score = ?3 AND (reached_at, id) < (?4, ?5))), COUNT(*)
		FROM games WHERE contest = ?1 AND size = ?2 AND NOT hidden`, contest, size, e.Score, reached, e.GameID).Scan(&ahead, &total)
	if err != nil {
		return store.Entry{}, 0, fmt.Errorf("rank of player %d in %s: %w", playerID, contest, err)
	}
	e.Rank = ahead + 1
	return e, total, nil
}
