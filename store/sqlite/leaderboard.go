package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Entry is one row of a leaderboard: a player's best game of a size and
// kind (in progress or ended) and its rank.
type Entry struct {
	Rank        int // 1-based; no two entries share a rank
	PlayerID    int64
	Name        string
	Fingerprint string // the player's key, as Player.Fingerprint
	Score       int
	MaxTile     int
	Moves       int
	Won         bool
	Ended       *time.Time // nil while the game is in progress
	GameID      int64
}

// The leaderboard order: higher score first; on equal scores, whoever
// reached that score first; then the older game. It matches the
// player_bests_rank index column for column, so the top N is an index walk.
const rankOrder = `b.score DESC, b.reached_at, b.game_id`

const entryColumns = `b.player_id, p.name, p.fingerprint, g.score, g.max_tile, g.moves, g.won, g.ended_at, g.id, b.score, b.reached_at`

func scanEntry(sc interface{ Scan(...any) error }, e *Entry, bestScore, reached *int64) error {
	var ended sql.NullInt64
	if err := sc.Scan(&e.PlayerID, &e.Name, &e.Fingerprint, &e.Score, &e.MaxTile, &e.Moves, &e.Won, &ended, &e.GameID, bestScore, reached); err != nil {
		return err
	}
	e.Ended = timePtr(ended)
	return nil
}

// Leaderboard returns the top limit players for a board size and kind,
// one row per player (their best game), best first.
func (s *Store) Leaderboard(ctx context.Context, size int, kind Kind, limit int) ([]Entry, error) {
	return s.LeaderboardFrom(ctx, size, kind, 0, limit)
}

// LeaderboardFrom is Leaderboard from rank offset+1 on: a page of it. The
// ranks skipped are walked on the index, not read.
func (s *Store) LeaderboardFrom(ctx context.Context, size int, kind Kind, offset, limit int) ([]Entry, error) {
	if err := checkSizeKind(size, kind); err != nil {
		return nil, fmt.Errorf("leaderboard: %w", err)
	}
	if limit <= 0 || offset < 0 {
		return nil, nil
	}
	rows, err := s.read.QueryContext(ctx, leaderboardQuery, size, string(kind), limit, offset)
	if err != nil {
		return nil, fmt.Errorf("leaderboard %d×%d %s: %w", size, size, kind, err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e := Entry{Rank: offset + len(out) + 1}
		var score, reached int64
		if err := scanEntry(rows, &e, &score, &reached); err != nil {
			return nil, fmt.Errorf("leaderboard %d×%d %s: %w", size, size, kind, err)
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

const playerBestQuery = `
	SELECT ` + entryColumns + `
	FROM player_bests b
	JOIN games g ON g.id = b.game_id
	JOIN players p ON p.id = b.player_id
	WHERE b.player_id = ? AND b.size = ? AND b.kind = ?`

// rankQuery counts the entries ahead of (score, reached_at, game_id)
// without walking them all: whole score buckets above the entry's bucket
// from score_buckets, then, on player_bests_rank, the higher scores inside
// its bucket and the equal scores reached earlier.
const rankQuery = `
	SELECT
	  (SELECT coalesce(sum(players), 0) FROM score_buckets WHERE size = ?1 AND kind = ?2 AND bucket > ?6)
	+ (SELECT count(*) FROM player_bests WHERE size = ?1 AND kind = ?2 AND score > ?3 AND score <= ?7)
	+ (SELECT count(*) FROM player_bests WHERE size = ?1 AND kind = ?2 AND score = ?3
	     AND (reached_at, game_id) < (?4, ?5))`

// scoreBucket is the bucket of a score in score_buckets, as the triggers
// in the migrations compute it: digits * 1000 + the first three digits.
// bucketTop is the highest score in the same bucket.
func scoreBucket(score int64) (bucket, bucketTop int64) {
	digits := int64(len(strconv.FormatInt(score, 10)))
	if digits <= 3 {
		return digits*1000 + score, score
	}
	scale := int64(1)
	for range digits - 3 {
		scale *= 10
	}
	prefix := score / scale
	return digits*1000 + prefix, (prefix+1)*scale - 1
}

// PlayerRank returns the player's best game of a size and kind with its
// rank, or ErrNotFound if they have played no move in such a game.
func (s *Store) PlayerRank(ctx context.Context, playerID int64, size int, kind Kind) (Entry, error) {
	if err := checkSizeKind(size, kind); err != nil {
		return Entry{}, fmt.Errorf("player rank: %w", err)
	}
	// The header reads this every few seconds for every player: on the
	// writer's connection, whose page cache is warm (writer.read), and
	// where nothing writes between the two queries.
	var e Entry
	var ahead int
	err := s.w.read(ctx, func(ctx context.Context, conn *sql.DB) error {
		var score, reached int64
		if err := scanEntry(conn.QueryRowContext(ctx, playerBestQuery, playerID, size, string(kind)), &e, &score, &reached); err != nil {
			return err
		}
		bucket, top := scoreBucket(score)
		return conn.QueryRowContext(ctx, rankQuery, size, string(kind), score, reached, e.GameID, bucket, top).Scan(&ahead)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, fmt.Errorf("rank of player %d (%d×%d %s): %w", playerID, size, size, kind, ErrNotFound)
	}
	if err != nil {
		return Entry{}, fmt.Errorf("rank of player %d: %w", playerID, err)
	}
	e.Rank = ahead + 1
	return e, nil
}
