package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/ssh2048/ssh2048/store"
)

// GameReview is store.ReviewStore's.
func (s *Store) GameReview(ctx context.Context, gameID int64, version int) ([]byte, error) {
	var b []byte
	err := s.pool.QueryRow(ctx, `SELECT review FROM game_reviews WHERE game_id = $1 AND version = $2`, gameID, version).Scan(&b)
	if noRows(err) {
		return nil, fmt.Errorf("review of game %d (version %d): %w", gameID, version, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("review of game %d: %w", gameID, err)
	}
	return b, nil
}

// SaveGameReview is store.ReviewStore's.
func (s *Store) SaveGameReview(ctx context.Context, gameID int64, version int, review []byte) error {
	err := s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, _ int64) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM games WHERE id = $1`, gameID).Scan(&one); noRows(err) {
			return store.ErrNotFound
		} else if err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO game_reviews (game_id, version, review) VALUES ($1, $2, $3)
			ON CONFLICT (game_id) DO UPDATE SET version = $2, review = $3, made_at = now()`, gameID, version, review)
		return err
	})
	if err != nil {
		return fmt.Errorf("save review of game %d: %w", gameID, err)
	}
	return nil
}

// PlayerReviews is store.ReviewStore's.
func (s *Store) PlayerReviews(ctx context.Context, playerID int64, version int, each func(gameID int64, review []byte) error) (int, error) {
	rows, err := s.pool.Query(ctx, store.PlayerReviewsQuery, version, playerID, string(store.KindHuman))
	if err != nil {
		return 0, fmt.Errorf("reviews of player #%d: %w", playerID, err)
	}
	defer rows.Close()
	games, err := store.ScanPlayerReviews(rows, each)
	if err != nil {
		return games, fmt.Errorf("reviews of player #%d: %w", playerID, err)
	}
	return games, nil
}
