package store

import "fmt"

// What both stores share of ReviewStore.PlayerReviews: its query and how
// they read its rows.

// PlayerReviewsQuery is PlayerReviews's query, with PostgreSQL's
// placeholders: $1 the version, $2 the player, $3 KindHuman. It is one
// query, so that the games it counts and the reviews it reads are one
// snapshot; a game without a review of that version has a NULL one.
const PlayerReviewsQuery = `
	SELECT g.id, r.review FROM games g LEFT JOIN game_reviews r ON r.game_id = g.id AND r.version = $1
	WHERE g.player_id = $2 AND g.kind = $3 AND g.ended_at IS NOT NULL ORDER BY g.id`

// ScanPlayerReviews reads the rows of PlayerReviewsQuery (*sql.Rows and
// pgx.Rows alike), calls each with every game's review that there is,
// and returns how many games it read. The caller closes rows.
func ScanPlayerReviews(rows MoveRows, each func(gameID int64, review []byte) error) (int, error) {
	games := 0
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return games, fmt.Errorf("read reviews: %w", err)
		}
		games++
		if b == nil {
			continue
		}
		if err := each(id, b); err != nil {
			return games, err
		}
	}
	if err := rows.Err(); err != nil {
		return games, fmt.Errorf("read reviews: %w", err)
	}
	return games, nil
}
