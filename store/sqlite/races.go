package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/store"
)

// Ratings returns the race ratings of the players that have one.
func (s *Store) Ratings(ctx context.Context, playerIDs []int64) (map[int64]store.Rating, error) {
	return ratingsOf(ctx, s.read, playerIDs)
}

// ratingsOf is Ratings read through q: the read pool, or a write's
// transaction.
func ratingsOf(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, playerIDs []int64) (map[int64]store.Rating, error) {
	out := make(map[int64]store.Rating, len(playerIDs))
	for _, id := range playerIDs {
		var r store.Rating
		err := q.QueryRowContext(ctx, `
			SELECT rating, deviation, volatility, races FROM ratings WHERE player_id = ?`, id,
		).Scan(&r.Rating, &r.Deviation, &r.Volatility, &r.Races)
		switch {
		case err == nil:
			out[id] = r
		case !errors.Is(err, sql.ErrNoRows):
			return nil, fmt.Errorf("rating of player %d: %w", id, err)
		}
	}
	return out, nil
}

// RecordRace stores a finished race, its entries and the new ratings, and
// ends its games still in progress, in one transaction.
func (s *Store) RecordRace(ctx context.Context, r store.RaceResult) error {
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		if err := s.mlog.foldContest(ctx, tx, r.Contest); err != nil {
			return err
		}
		var id int64
		if err := tx.QueryRowContext(ctx, `
			INSERT INTO races (contest, size, room, bots, started_at, ended_at) VALUES (?, ?, ?, ?, ?, ?)
			RETURNING id`, r.Contest, r.Size, r.Room, r.Bots, micros(r.Started), micros(r.Ended)).Scan(&id); err != nil {
			return err
		}
		owners := make(map[int64]int64, len(r.Entries))
		for _, e := range r.Entries {
			var owner int64
			if err := tx.QueryRowContext(ctx, `SELECT player_id FROM games WHERE id = ?`, e.GameID).Scan(&owner); err != nil {
				return fmt.Errorf("the racer of game %d: %w", e.GameID, err)
			}
			owners[e.GameID] = owner
		}
		entries := r.Recorded(owners)
		if r.Rate != nil {
			// The ratings as they are now, in the writer's transaction:
			// a race another one of its racers finished meanwhile is
			// counted (SQLite's one writer orders the two).
			current, err := ratingsOf(ctx, tx, store.Rated(entries))
			if err != nil {
				return err
			}
			entries = r.Rerated(entries, current)
		}
		for _, e := range entries {
			var after any
			if e.After != nil {
				after = e.After.Rating
				if _, err := tx.ExecContext(ctx, `
					INSERT INTO ratings (player_id, rating, deviation, volatility, races, updated_at)
					VALUES (?1, ?2, ?3, ?4, 1, ?5)
					ON CONFLICT (player_id) DO UPDATE SET rating = ?2, deviation = ?3, volatility = ?4,
						races = races + 1, updated_at = ?5`,
					e.PlayerID, e.After.Rating, e.After.Deviation, e.After.Volatility, now); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO race_entries (race_id, player_id, game_id, place, score, forfeit, rating_after)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, id, e.PlayerID, e.GameID, e.Place, e.Score, e.Forfeit, after); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `
			UPDATE games SET ended_at = ?2, updated_at = ?2 WHERE contest = ?1 AND ended_at IS NULL`, r.Contest, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("record %s: %w", r.Contest, err)
	}
	s.ranks.ContestsEnded(func(c string) bool { return c == r.Contest })
	return nil
}

// RatingBoard lists the best race ratings, highest first.
func (s *Store) RatingBoard(ctx context.Context, limit int) ([]store.RatingEntry, error) {
	rows, err := s.read.QueryContext(ctx, `
		SELECT r.player_id, p.name, p.fingerprint, r.rating, r.deviation, r.volatility, r.races
		FROM ratings r JOIN players p ON p.id = r.player_id
		WHERE NOT p.hidden
		ORDER BY r.rating DESC, r.player_id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("rating board: %w", err)
	}
	defer rows.Close()
	var out []store.RatingEntry
	for rows.Next() {
		e := store.RatingEntry{Rank: len(out) + 1}
		if err := rows.Scan(&e.PlayerID, &e.Name, &e.Fingerprint, &e.Rating.Rating, &e.Deviation, &e.Volatility, &e.Races); err != nil {
			return nil, fmt.Errorf("rating board: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
