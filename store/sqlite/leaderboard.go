package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ssh2048/ssh2048/store"
)

// The leaderboard order: higher score first; on equal scores, whoever
// reached that score first; then the older game. It matches the
// player_bests_rank index column for column, so the top N is an index walk.
const rankOrder = `b.score DESC, b.reached_at, b.game_id`

const entryColumns = `b.player_id, p.name, p.fingerprint, g.score, g.max_tile, g.moves, g.won, g.ended_at, g.id, b.score, b.reached_at`

func scanEntry(sc interface{ Scan(...any) error }, e *store.Entry, bestScore, reached *int64) error {
	var ended sql.NullInt64
	if err := sc.Scan(&e.PlayerID, &e.Name, &e.Fingerprint, &e.Score, &e.MaxTile, &e.Moves, &e.Won, &ended, &e.GameID, bestScore, reached); err != nil {
		return err
	}
	e.Ended = timePtr(ended)
	return nil
}

// Leaderboard returns the top limit players for a board size and kind,
// one row per player (their best game), best first.
func (s *Store) Leaderboard(ctx context.Context, size int, kind store.Kind, limit int) ([]store.Entry, error) {
	return s.LeaderboardFrom(ctx, size, kind, 0, limit)
}

// LeaderboardFrom is Leaderboard from rank offset+1 on: a page of it. The
// ranks skipped are walked on the index, not read.
func (s *Store) LeaderboardFrom(ctx context.Context, size int, kind store.Kind, offset, limit int) ([]store.Entry, error) {
	if err := store.CheckGame(size, kind); err != nil {
		return nil, fmt.Errorf("leaderboard: %w", err)
	}
	if limit <= 0 || offset < 0 {
		return nil, nil
	}
	if err := s.offerMarkedBests(ctx); err != nil {
		return nil, fmt.Errorf("leaderboard %d×%d %s: %w", size, size, kind, err)
	}
	rows, err := s.read.QueryContext(ctx, leaderboardQuery, size, string(kind), limit, offset)
	if err != nil {
		return nil, fmt.Errorf("leaderboard %d×%d %s: %w", size, size, kind, err)
	}
	defer rows.Close()
	var out []store.Entry
	for rows.Next() {
		e := store.Entry{Rank: offset + len(out) + 1}
		var score, reached int64
		if err := scanEntry(rows, &e, &score, &reached); err != nil {
			return nil, fmt.Errorf("leaderboard %d×%d %s: %w", size, size, kind, err)
		}
		if st, ok := s.mlog.latest(e.GameID); ok {
			e.Score, e.MaxTile, e.Moves, e.Won = st.Score, st.MaxTile, st.Moves, st.Won
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("leaderboard %d×%d %s: %w", size, size, kind, err)
	}
	return out, nil
}

const leaderboardQuery = `
	SELECT ` + entryColumns + `
	FROM player_bests b
	JOIN games g ON g.id = b.game_id
	JOIN players p ON p.id = b.player_id
	WHERE b.size = ? AND b.kind = ?
	ORDER BY ` + rankOrder + `
	LIMIT ? OFFSET ?`
