package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ssh2048/ssh2048/store"
)

// OpenContestGame returns the player's game of a contest (see migration
// 00005), starting it on the contest's seed if they have none. A game of
// a daily contest that has ended is returned with store.ErrContestPlayed and its
// id, so the caller can show it: one attempt a day.
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
		// Read first, off the writer: the day's game, once ended, is
		// opened again by every later `daily` of that day. createGame
		// checks again in its write transaction, where it holds.
		var id int64
		var ended sql.NullInt64
		err := s.read.QueryRowContext(ctx, `
			SELECT id, ended_at FROM games WHERE player_id = ? AND size = ? AND contest = ?`,
			playerID, size, contest).Scan(&id, &ended)
		switch {
		case err == nil && ended.Valid:
			return played(id)
		case err != nil && !errors.Is(err, sql.ErrNoRows):
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
	return s.loadClaimed(ctx, id, token)
}

// ContestBoard ranks the games of a contest of one size, best first: a
// higher score, then whoever reached it first. Every game counts, in
// progress or not.
func (s *Store) ContestBoard(ctx context.Context, contest string, size, limit int) ([]store.Entry, error) {
	if err := s.settle(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.mlog.foldContest(ctx, tx, contest)
	}); err != nil {
		return nil, fmt.Errorf("board of %s: %w", contest, err)
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT g.player_id, p.name, p.fingerprint, g.score, g.max_tile, g.moves, g.won, g.ended_at, g.id
		FROM games g JOIN players p ON p.id = g.player_id
		WHERE g.contest = ? AND g.size = ? AND NOT g.hidden
		ORDER BY g.score DESC, g.reached_at, g.id LIMIT ?`, contest, size, limit)
	if err != nil {
		return nil, fmt.Errorf("board of %s: %w", contest, err)
	}
	defer rows.Close()
	var out []store.Entry
	for rows.Next() {
		e := store.Entry{Rank: len(out) + 1}
		var ended sql.NullInt64
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

// EndContest ends every game of a contest still in progress, as stored
// (a day that is over, a race whose clock ran out).
func (s *Store) EndContest(ctx context.Context, contest string) error {
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		if err := s.mlog.foldContest(ctx, tx, contest); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			UPDATE games SET ended_at = ?2, updated_at = ?2 WHERE contest = ?1 AND ended_at IS NULL`, contest, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("end %s: %w", contest, err)
	}
	s.ranks.ContestsEnded(func(c string) bool { return c == contest })
	return nil
}

// ContestsPlayed lists the contests with the given prefix ("daily:") the
// player has a game in, newest first, at most limit.
func (s *Store) ContestsPlayed(ctx context.Context, playerID int64, prefix string, limit int) ([]string, error) {
	if err := s.settle(ctx, func(ctx context.Context, tx *sql.Tx) error { return s.mlog.foldPlayer(ctx, tx, playerID) }); err != nil {
		return nil, fmt.Errorf("contests of player %d: %w", playerID, err)
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT DISTINCT contest FROM games WHERE player_id = ? AND contest LIKE ? || '%' AND moves > 0
		ORDER BY contest DESC LIMIT ?`, playerID, prefix, limit)
	if err != nil {
		return nil, fmt.Errorf("contests of player %d: %w", playerID, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Secret returns the server's secret of that name, creating a random one
// of 32 bytes the first time. Every node on one database gets the same.
func (s *Store) Secret(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := s.read.QueryRowContext(ctx, `SELECT value FROM server_secrets WHERE name = ?`, name).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	fresh := make([]byte, 32)
	rand.Read(fresh)
	err = s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, _ int64) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO server_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, name, fresh); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM server_secrets WHERE name = ?`, name).Scan(&v)
	})
	if err != nil {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	return v, nil
}

// EndPastDailies ends the daily challenge games still in progress of
// every day before today ("YYYY-MM-DD"): once its day is over a daily
// game can no longer be played, and its seed is published.
func (s *Store) EndPastDailies(ctx context.Context, today string) error {
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		if err := s.mlog.foldWhere(ctx, tx, `
			SELECT id FROM games WHERE contest >= 'daily:' AND contest < ? AND contest <> '' AND ended_at IS NULL`, "daily:"+today); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			UPDATE games SET ended_at = ?2, updated_at = ?2
			WHERE contest >= 'daily:' AND contest < ?1 AND ended_at IS NULL`, "daily:"+today, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("end dailies before %s: %w", today, err)
	}
	s.ranks.ContestsEnded(func(c string) bool { return c >= "daily:" && c < "daily:"+today })
	return nil
}
