package game

import (
	"context"
	"fmt"
	"slices"

	"github.com/ssh2048/ssh2048/store"
)

// History is a player's own games, for a screen that lists them to be
// replayed: the most recent ones, and the best of each board size.
type History struct {
	Recent []store.GameSummary // newest first
	Best   []store.GameSummary // the best score of each size played, smallest size first
}

// historyWindow is how many of a player's newest games History reads to
// find the best of each size: one indexed read, bounded whatever the
// player's age. A best older than that many games is not listed.
const historyWindow = 1000

// History returns the player's recent games (at most recent of them; the
// games without a move are left out) and their best game of each size,
// every kind counted. A guest has none: their games are not stored.
func (s *Service) History(ctx context.Context, p Player, recent int) (History, error) {
	if p.Guest {
		return History{}, nil
	}
	games, err := s.store.PlayerGames(ctx, p.ID, historyWindow)
	if err != nil {
		return History{}, fmt.Errorf("history of player %d: %w", p.ID, err)
	}
	var h History
	best := map[int]store.GameSummary{}
	for _, g := range games { // newest first
		if g.Moves == 0 {
			continue
		}
		if len(h.Recent) < recent {
			h.Recent = append(h.Recent, g)
		}
		// Newest first: on equal scores the older game, which got there
		// first, stays the best, as on the leaderboard.
		if b, ok := best[g.Size]; !ok || g.Score >= b.Score {
			best[g.Size] = g
		}
	}
	for _, g := range best {
		h.Best = append(h.Best, g)
	}
	slices.SortFunc(h.Best, func(a, b store.GameSummary) int { return a.Size - b.Size })
	return h, nil
}
