package sqlite

import (
	"context"
	"fmt"

	"github.com/ssh2048/ssh2048/store"
)

// BotRaceBoard ranks the players of races with bots: most wins first,
// then the best score.
func (s *Store) BotRaceBoard(ctx context.Context, limit int) ([]store.BotRaceEntry, error) {
	rows, err := s.read.QueryContext(ctx, `
		SELECT e.player_id, p.name, p.fingerprint, COUNT(*), SUM(e.place = 1), MAX(e.score)
		FROM race_entries e JOIN races r ON r.id = e.race_id JOIN players p ON p.id = e.player_id
		JOIN games g ON g.id = e.game_id
		WHERE r.bots = 1 AND NOT p.hidden AND NOT g.hidden
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
// when the player has none. The daily challenge's header asks for it after
// scoring moves, so it is answered from memory, as PlayerRank is.
func (s *Store) ContestRank(ctx context.Context, playerID int64, contest string, size int) (store.Entry, int, error) {
	return s.ranks.ContestRank(ctx, playerID, contest, size)
}
