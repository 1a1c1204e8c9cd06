package postgres

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/ssh2048/ssh2048/store"
)

// The leaderboard order, column for column the player_bests_rank index,
// so that the top N is an index walk (as in package sqlite).
const rankOrder = `b.score DESC, b.reached_at, b.game_id`

const entryColumns = `b.player_id, p.name, p.fingerprint, g.score, g.max_tile, g.moves, g.won, g.ended_at, g.id, b.score, b.reached_at`

func scanEntry(row pgx.Row, e *store.Entry, bestScore, reached *int64) error {
	var ended *int64
	if err := row.Scan(&e.PlayerID, &e.Name, &e.Fingerprint, &e.Score, &e.MaxTile, &e.Moves, &e.Won, &ended, &e.GameID, bestScore, reached); err != nil {
		return err
	}
	e.Ended = timePtr(ended)
	return nil
}

// Leaderboard returns the top limit players for a board size and kind.
func (s *Store) Leaderboard(ctx context.Context, size int, kind store.Kind, limit int) ([]store.Entry, error) {
	if err := store.CheckGame(size, kind); err != nil {
		return nil, fmt.Errorf("leaderboard: %w", err)
	}
	if limit <= 0 {
		return nil, nil
	}
	if err := s.offerMarkedBests(ctx); err != nil {
		return nil, fmt.Errorf("leaderboard: %w", err)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT `+entryColumns+`
		FROM player_bests b
		JOIN games g ON g.id = b.game_id
		JOIN players p ON p.id = b.player_id
		WHERE b.size = $1 AND b.kind = $2
		ORDER BY `+rankOrder+`
		LIMIT $3`, size, string(kind), limit)
	if err != nil {
		return nil, fmt.Errorf("leaderboard %d×%d %s: %w", size, size, kind, err)
	}
	defer rows.Close()
	var out []store.Entry
	for rows.Next() {
		e := store.Entry{Rank: len(out) + 1}
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

// OpenContestGame returns the player's game of a contest, started on its
// seed if need be; see store.Store.OpenContestGame.
func (s *Store) OpenContestGame(ctx context.Context, playerID int64, size int, kind store.Kind, contest string, seed uint64) (*store.SavedGame, error) {
	if err := store.CheckGame(size, kind); err != nil {
		return nil, fmt.Errorf("open contest game: %w", err)
	}
	if contest == "" {
		return nil, fmt.Errorf("open contest game: %w: no contest", store.ErrInvalid)
	}
	once := strings.HasPrefix(contest, "daily:")
	played := func(id int64) (*store.SavedGame, error) {
		return &store.SavedGame{ID: id, PlayerID: playerID, Size: size}, fmt.Errorf("%s %d×%d: %w", contest, size, size, store.ErrContestPlayed)
	}
	if once {
		// Read first, off the logins' writer: the day's game, once
		// ended, is opened again by every later `daily` of that day.
		// createGame's insert meets it too, should it end after this.
		var id int64
		var ended *int64
		err := s.pool.QueryRow(ctx, `
			SELECT id, ended_at FROM games WHERE player_id = $1 AND size = $2 AND contest = $3`,
			playerID, size, contest).Scan(&id, &ended)
		switch {
		case err == nil && ended != nil:
			return played(id)
		case err != nil && !noRows(err):
			return nil, fmt.Errorf("open %s: %w", contest, err)
		}
	}
	id, token, err := s.createGame(ctx, gameSpec{playerID: playerID, size: size, kind: kind, contest: contest, seed: seed, once: once})
	if errors.Is(err, store.ErrContestPlayed) {
		return played(id)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s for player %d: %w", contest, playerID, err)
	}
	return s.loadGame(ctx, id, token)
}

// ContestBoard ranks the games of a contest of one size, best first.
func (s *Store) ContestBoard(ctx context.Context, contest string, size, limit int) ([]store.Entry, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT g.player_id, p.name, p.fingerprint, g.score, g.max_tile, g.moves, g.won, g.ended_at, g.id
		FROM games g JOIN players p ON p.id = g.player_id
		WHERE g.contest = $1 AND g.size = $2 AND NOT g.hidden
		ORDER BY g.score DESC, g.reached_at, g.id LIMIT $3`, contest, size, limit)
	if err != nil {
		return nil, fmt.Errorf("board of %s: %w", contest, err)
	}
	defer rows.Close()
	var out []store.Entry
	for rows.Next() {
		e := store.Entry{Rank: len(out) + 1}
		var ended *int64
		if err := rows.Scan(&e.PlayerID, &e.Name, &e.Fingerprint, &e.Score, &e.MaxTile, &e.Moves, &e.Won, &ended, &e.GameID); err != nil {
			return nil, fmt.Errorf("board of %s: %w", contest, err)
		}
		e.Ended = timePtr(ended)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("board of %s: %w", contest, err)
	}
	return out, nil
}

// endWhere ends, as stored, the games in progress a condition on $1
// selects.
func (s *Store) endWhere(ctx context.Context, cond string, arg any) error {
	return s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		_, err := tx.Exec(ctx, `UPDATE games SET ended_at = $2, updated_at = $2 WHERE `+cond+` AND ended_at IS NULL`, arg, now)
		return err
	})
}

// EndContest ends every game of a contest still in progress, as stored.
func (s *Store) EndContest(ctx context.Context, contest string) error {
	if err := s.endWhere(ctx, `contest = $1`, contest); err != nil {
		return fmt.Errorf("end %s: %w", contest, err)
	}
	s.ranks.ContestsEnded(func(c string) bool { return c == contest })
	return nil
}

// EndPastDailies ends the daily games still in progress of every day
// before today ("YYYY-MM-DD").
func (s *Store) EndPastDailies(ctx context.Context, today string) error {
	if err := s.endWhere(ctx, `contest >= 'daily:' AND contest < $1`, "daily:"+today); err != nil {
		return fmt.Errorf("end dailies before %s: %w", today, err)
	}
	s.ranks.ContestsEnded(func(c string) bool { return c >= "daily:" && c < "daily:"+today })
	return nil
}

// ContestsPlayed lists the contests with the given prefix the player has
// a game in, newest first, at most limit.
func (s *Store) ContestsPlayed(ctx context.Context, playerID int64, prefix string, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT contest FROM games WHERE player_id = $1 AND starts_with(contest, $2) AND moves > 0
		ORDER BY contest DESC LIMIT $3`, playerID, prefix, limit)
	if err != nil {
		return nil, fmt.Errorf("contests of player %d: %w", playerID, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("contests of player %d: %w", playerID, err)
	}
	return out, nil
}

// Secret returns the server's secret of that name, creating a random one
// of 32 bytes the first time: every node on the database gets the same.
func (s *Store) Secret(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := s.pool.QueryRow(ctx, `SELECT value FROM server_secrets WHERE name = $1`, name).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !noRows(err) {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	fresh := make([]byte, 32)
	rand.Read(fresh)
	err = s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, _ int64) error {
		if _, err := tx.Exec(ctx, `INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, fresh); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT value FROM server_secrets WHERE name = $1`, name).Scan(&v)
	})
	if err != nil {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	return v, nil
}

// Ratings returns the race ratings of the players that have one.
func (s *Store) Ratings(ctx context.Context, playerIDs []int64) (map[int64]store.Rating, error) {
	return ratingsOf(ctx, s.pool, playerIDs)
}

// ratingsOf is Ratings read through q: the pool, or a write's
// transaction.
func ratingsOf(ctx context.Context, q interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}, playerIDs []int64) (map[int64]store.Rating, error) {
	rows, err := q.Query(ctx, `
		SELECT player_id, rating, deviation, volatility, races FROM ratings WHERE player_id = ANY($1)`, playerIDs)
	if err != nil {
		return nil, fmt.Errorf("ratings: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]store.Rating, len(playerIDs))
	for rows.Next() {
		var id int64
		var r store.Rating
		if err := rows.Scan(&id, &r.Rating, &r.Deviation, &r.Volatility, &r.Races); err != nil {
			return nil, fmt.Errorf("ratings: %w", err)
		}
		out[id] = r
	}
	return out, rows.Err()
}

// ratingLockClass is the first key of the advisory locks RecordRace
// takes on the ratings of a race's players (the second: the player's id,
// as PostgreSQL's two-key locks take an int each; ids past 2^31 share
// locks, which only serializes more).
const ratingLockClass int32 = 0x2048

// RecordRace stores a finished race, its entries and the new ratings, and
// ends its games still in progress, in one transaction.
func (s *Store) RecordRace(ctx context.Context, r store.RaceResult) error {
	err := s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		var id int64
		if err := tx.QueryRow(ctx, `
			INSERT INTO races (contest, size, room, bots, started_at, ended_at) VALUES ($1, $2, $3, $4, $5, $6)
			RETURNING id`, r.Contest, r.Size, r.Room, r.Bots, r.Started.UnixMicro(), r.Ended.UnixMicro()).Scan(&id); err != nil {
			return err
		}
		owners := make(map[int64]int64, len(r.Entries))
		for _, e := range r.Entries {
			var owner int64
			if err := tx.QueryRow(ctx, `SELECT player_id FROM games WHERE id = $1`, e.GameID).Scan(&owner); err != nil {
				return fmt.Errorf("the racer of game %d: %w", e.GameID, err)
			}
			owners[e.GameID] = owner
		}
		entries := r.Recorded(owners)
		if r.Rate != nil {
			// The ratings as they are now: each rated player's lock, taken
			// in one order, holds off another node's race of theirs
			// being recorded until this one commits (a row lock would
			// not cover a player's first rating, which has no row yet).
			rated := store.Rated(entries)
			for _, id := range slices.Sorted(slices.Values(rated)) {
				if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, ratingLockClass, int32(id)); err != nil {
					return fmt.Errorf("lock the rating of player %d: %w", id, err)
				}
			}
			current, err := ratingsOf(ctx, tx, rated)
			if err != nil {
				return err
			}
			entries = r.Rerated(entries, current)
		}
		for _, e := range entries {
			var after *float64
			if e.After != nil {
				after = &e.After.Rating
				if _, err := tx.Exec(ctx, `
					INSERT INTO ratings (player_id, rating, deviation, volatility, races, updated_at)
					VALUES ($1, $2, $3, $4, 1, $5)
					ON CONFLICT (player_id) DO UPDATE SET rating = $2, deviation = $3, volatility = $4,
						races = ratings.races + 1, updated_at = $5`,
					e.PlayerID, e.After.Rating, e.After.Deviation, e.After.Volatility, now); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, `
				INSERT INTO race_entries (race_id, player_id, game_id, place, score, forfeit, rating_after)
				VALUES ($1, $2, $3, $4, $5, $6, $7)`, id, e.PlayerID, e.GameID, e.Place, e.Score, e.Forfeit, after); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `UPDATE games SET ended_at = $2, updated_at = $2 WHERE contest = $1 AND ended_at IS NULL`, r.Contest, now)
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
	rows, err := s.pool.Query(ctx, `
		SELECT r.player_id, p.name, p.fingerprint, r.rating, r.deviation, r.volatility, r.races
		FROM ratings r JOIN players p ON p.id = r.player_id
		WHERE NOT p.hidden
		ORDER BY r.rating DESC, r.player_id LIMIT $1`, limit)
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

// BotRaceBoard ranks the players of races with bots: most wins first,
// then the best score; see sqlite.Store.BotRaceBoard.
func (s *Store) BotRaceBoard(ctx context.Context, limit int) ([]store.BotRaceEntry, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT e.player_id, p.name, p.fingerprint, count(*), count(*) FILTER (WHERE e.place = 1), max(e.score)
		FROM race_entries e JOIN races r ON r.id = e.race_id JOIN players p ON p.id = e.player_id
		JOIN games g ON g.id = e.game_id
		WHERE r.bots AND NOT p.hidden AND NOT g.hidden
		GROUP BY e.player_id, p.name, p.fingerprint
		ORDER BY count(*) FILTER (WHERE e.place = 1) DESC, max(e.score) DESC, e.player_id LIMIT $1`, limit)
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
