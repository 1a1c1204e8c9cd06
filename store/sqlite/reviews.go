package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/accounts"
)

// GameReview is store.ReviewStore's.
func (s *Store) GameReview(ctx context.Context, gameID int64, version int) ([]byte, error) {
	var b []byte
	err := s.read.QueryRowContext(ctx, `SELECT review FROM game_reviews WHERE game_id = ? AND version = ?`, gameID, version).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("review of game %d (version %d): %w", gameID, version, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("review of game %d: %w", gameID, err)
	}
	return b, nil
}

// SaveGameReview is store.ReviewStore's.
func (s *Store) SaveGameReview(ctx context.Context, gameID int64, version int, review []byte) error {
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM games WHERE id = ?`, gameID).Scan(&one); errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		} else if err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO game_reviews (game_id, version, review, made_at) VALUES (?1, ?2, ?3, ?4)
			ON CONFLICT (game_id) DO UPDATE SET version = ?2, review = ?3, made_at = ?4`, gameID, version, review, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("save review of game %d: %w", gameID, err)
	}
	return nil
}

// PlayerReviews is store.ReviewStore's.
func (s *Store) PlayerReviews(ctx context.Context, playerID int64, version int, each func(gameID int64, review []byte) error) (int, error) {
	rows, err := s.read.QueryContext(ctx, accounts.Placeholders(store.PlayerReviewsQuery), version, playerID, string(store.KindHuman))
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
