package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/ranks"
)

// LoadOrCreateGame returns the player's game in progress for (size, kind),
// starting one if there is none. The game is rebuilt by replaying its seed
// and moves with the engine and checked against the stored snapshot; a
// mismatch is logged as an error. If the replay disagrees even on the
// number of moves (the rules changed under a stored game), that game is
// ended as stored, so its record and score stay, and a new one is started.
func (s *Store) LoadOrCreateGame(ctx context.Context, playerID int64, size int, kind store.Kind) (*store.SavedGame, error) {
	if err := store.CheckGame(size, kind); err != nil {
		return nil, fmt.Errorf("load game: %w", err)
	}
	for range 2 {
		id, token, err := s.createGame(ctx, gameSpec{playerID: playerID, size: size, kind: kind})
		if err != nil {
			return nil, fmt.Errorf("load game of player %d (%d×%d %s): %w", playerID, size, size, kind, err)
		}
		g, err := s.loadClaimed(ctx, id, token)
		if !errors.Is(err, store.ErrReplayDiverged) {
			return g, err
		}
		if err := s.endAsStored(ctx, id); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("load game of player %d: %w", playerID, store.ErrReplayDiverged)
}

// NewGame ends the player's game in progress for (size, kind), if any (its
// score still counts), and starts a new one.
func (s *Store) NewGame(ctx context.Context, playerID int64, size int, kind store.Kind) (*store.SavedGame, error) {
	if err := store.CheckGame(size, kind); err != nil {
		return nil, fmt.Errorf("new game: %w", err)
	}
	id, token, err := s.createGame(ctx, gameSpec{playerID: playerID, size: size, kind: kind, replace: true})
	if err != nil {
		return nil, fmt.Errorf("new game for player %d (%d×%d %s): %w", playerID, size, size, kind, err)
	}
	return s.loadClaimed(ctx, id, token)
}

// gameSpec says which game createGame finds or starts.
type gameSpec struct {
	playerID int64
	size     int
	kind     store.Kind
	contest  string // '' for free play; see migration 00005
	seed     uint64 // a contest's shared seed; free play draws its own
	replace  bool   // end the game in progress and start another
	// once: the contest takes one game of the player and size, its
	// first (the daily); an ended one refuses another with
	// store.ErrContestPlayed (and its id).
	once bool
}

// createGame returns the id of the game in progress for (player, size,
// kind), creating it if there is none or if replace is set (ending the old
// one), and the token this process claimed it with (claims.go). Check and insert run in one write transaction, so two sessions of
// one player racing here end up with the same game.
func (s *Store) createGame(ctx context.Context, spec gameSpec) (id, token int64, err error) {
	playerID, size, kind, contest, replace := spec.playerID, spec.size, spec.kind, spec.contest, spec.replace
	seed, gen := spec.seed, engine.Current
	if contest == "" {
		seed = s.newSeed()
	}
	eg, err := gen.NewGame(size, seed)
	if err != nil {
		return 0, 0, err
	}
	board := eg.Board().String()
	maxTile := eg.MaxTile()
	var at int64
	err = s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		at = now
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM players WHERE id = ?)`, playerID).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			return reject(fmt.Errorf("player %d: %w", playerID, store.ErrNotFound))
		}
		if err := s.mlog.foldPlayer(ctx, tx, playerID); err != nil {
			return err
		}
		if spec.once {
			// Checked here, in the write transaction, not only by the
			// caller's read before it: a game that ended after that read
			// would leave no game in progress below, and the insert would
			// meet games_daily_once's refusal, not ErrContestPlayed.
			var ended sql.NullInt64
			err := tx.QueryRowContext(ctx, `
				SELECT id, ended_at FROM games WHERE player_id = ? AND size = ? AND contest = ?`,
				playerID, size, contest).Scan(&id, &ended)
			switch {
			case err == nil && ended.Valid:
				return reject(store.ErrContestPlayed)
			case err != nil && !errors.Is(err, sql.ErrNoRows):
				return err
			}
		}
		if replace {
			if _, err := tx.ExecContext(ctx, `
				UPDATE games SET ended_at = ?4, updated_at = ?4
				WHERE player_id = ?1 AND size = ?2 AND kind = ?3 AND contest = ?5 AND ended_at IS NULL`,
				playerID, size, string(kind), now, contest); err != nil {
				return err
			}
		} else {
			err := tx.QueryRowContext(ctx, `
				SELECT id FROM games WHERE player_id = ? AND size = ? AND kind = ? AND contest = ? AND ended_at IS NULL`,
				playerID, size, string(kind), contest).Scan(&id)
			if err == nil {
				token, err = s.claim(ctx, tx, id, now, false)
				return err
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		err := tx.QueryRowContext(ctx, `
			INSERT INTO games (player_id, size, kind, seed, generator, max_tile, board, started_at, updated_at, reached_at, contest)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?8, ?9)
			RETURNING id`,
			playerID, size, string(kind), seedToDB(seed), int(gen), maxTile, board, now, contest).Scan(&id)
		if err != nil {
			return err
		}
		token, err = s.claim(ctx, tx, id, now, true)
		return err
	})
	if err == nil && replace && contest == "" {
		s.ranks.Replaced(playerID, ranks.Board{Size: size, Kind: kind}, at)
	}
	return id, token, err
}

// loadClaimed is loadGame of a game claimed with token.
func (s *Store) loadClaimed(ctx context.Context, id, token int64) (*store.SavedGame, error) {
	g, err := s.loadGame(ctx, id)
	if g != nil {
		g.Fence = token
	}
	return g, err
}

// loadGame reads game id and rebuilds it, in one read transaction so that a
// concurrent append cannot slip between the game row and its moves.
func (s *Store) loadGame(ctx context.Context, id int64) (*store.SavedGame, error) {
	tx, err := s.read.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("load game %d: %w", id, err)
	}
	defer tx.Rollback()
	g := &store.SavedGame{ID: id}
	var (
		kind, contest, tail    string
		seed, started, reached int64
		gen                    uint8
		stored                 store.MoveState
	)
	err = tx.QueryRowContext(ctx, `
		SELECT player_id, size, kind, seed, generator, started_at, score, max_tile, moves, won, board, contest, reached_at, hidden, tail
		FROM games WHERE id = ?`, id,
	).Scan(&g.PlayerID, &g.Size, &kind, &seed, &gen, &started, &stored.Score, &stored.MaxTile, &stored.Moves, &stored.Won, &stored.Board,
		&contest, &reached, &g.Hidden, &tail)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("load game %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load game %d: %w", id, err)
	}
	g.Kind, g.Seed, g.StartedAt = store.Kind(kind), seedFromDB(seed), fromMicros(started)

	dirs, err := readMoves(ctx, tx, id, tail)
	if err != nil {
		return nil, fmt.Errorf("load game %d: %w", id, err)
	}
	if err := store.Rebuild(s.log, g, engine.Generator(gen), dirs, stored); err != nil {
		return nil, err
	}
	// Its moves will come to the ranks as they commit.
	s.ranks.Opened(id, g.PlayerID, ranks.Board{Size: g.Size, Kind: g.Kind}, contest, stored, reached, g.Hidden)
	return g, nil
}

// gameRow is what a write needs to know about a game before changing it.
type gameRow struct {
	playerID int64
	size     int
	kind     store.Kind
	moves    int
	score    int
	claim    int64 // the fencing token of the last claim (claims.go)
}

// liveGame reads game id for a write, failing with store.ErrNotFound or, if it
// has ended, store.ErrGameEnded.
func liveGame(ctx context.Context, tx *sql.Tx, id int64) (gameRow, error) {
	var r gameRow
	var kind string
	var ended sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT player_id, size, kind, moves, score, claim, ended_at FROM games WHERE id = ?`, id).
		Scan(&r.playerID, &r.size, &kind, &r.moves, &r.score, &r.claim, &ended)
	if errors.Is(err, sql.ErrNoRows) {
		return r, reject(store.ErrNotFound)
	}
	r.kind = store.Kind(kind)
	if err == nil && ended.Valid {
		err = reject(store.ErrGameEnded)
	}
	return r, err
}

// AppendMove stores move seq (0-based: the number of moves played before
// it) of game gameID, with the state the caller's engine reached. It
// returns once the move is committed; only then may the caller show it.
// A seq that does not match the stored count (a stale session after
// another took the game over) fails with store.ErrConflict and writes nothing;
// a move on an ended game fails with store.ErrGameEnded.
func (s *Store) AppendMove(ctx context.Context, gameID int64, seq int, d engine.Direction, st store.MoveState) error {
	if err := store.CheckMove(seq, d, st); err != nil {
		return fmt.Errorf("append move %d to game %d: %w", seq, gameID, err)
	}
	var at int64
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		at = now
		// The move is a row of the log (movelog.go), inserted only if the
		// game's row is in play, claimed with this token and holds the
		// moves before it that are not logged: one statement does the
		// checks, and only when it inserts nothing do we look at why. The
		// logged moves' own checks are in memory.
		base := seq
		if g := s.mlog.logged(gameID); g != nil {
			if st.Fence != 0 && st.Fence != g.fence {
				return whyRefused(ctx, tx, gameID, g.base+len(g.digits), st)
			}
			if next := g.base + len(g.digits); seq != next {
				return reject(fmt.Errorf("%w: stored game has %d moves, not %d", store.ErrConflict, next, seq))
			}
			if st.Score < g.state.Score {
				return reject(fmt.Errorf("%w: score would go down from %d to %d", store.ErrInvalid, g.state.Score, st.Score))
			}
			base = g.base
		}
		// A fold the slot needs stands whatever becomes of this move:
		// it writes moves already committed.
		slot, err := s.mlog.slot(ctx, tx)
		if err != nil {
			return err
		}
		if n, err := s.moveStmt.exec(logMove, gameID, int64(seq), int64(d), now, int64(base), int64(st.Score), st.Fence, slot); err != nil {
			return err
		} else if n == 0 {
			return whyRefused(ctx, tx, gameID, base, st)
		}
		s.mlog.appended(gameID, seq, store.MoveDigit(d)[0], st, now)
		s.marked.Mark(gameID)
		return nil
	})
	if err != nil {
		return fmt.Errorf("append move %d to game %d: %w", seq, gameID, err)
	}
	s.ranks.Moved(gameID, st, at)
	s.obs.MoveStored()
	return nil
}

// appendMoveSQL is AppendMove's guarded insert into the log
// (moveStatement runs it): move ?2 of game ?1, direction ?3, at ?4, in
// slot ?8 of this process's ring (over the folded move it held), when the
// game's row holds at least ?5 moves (those before it that are not
// logged; another process may have folded some of these), a score no
// higher than ?6, and the claim ?7.
const appendMoveSQL = `
	INSERT OR REPLACE INTO move_log (slot, game_id, seq, dir, at)
	SELECT ?8, id, ?2, ?3, ?4 FROM games
	WHERE id = ?1 AND ended_at IS NULL AND moves BETWEEN ?5 AND ?2 AND score <= ?6 AND (?7 = 0 OR claim = ?7)`

// updateSnapshot writes a store.MoveState (?2..?6) at time ?7 into a game; the
// caller adds the WHERE clause.
const updateSnapshot = `
	UPDATE games
	SET score = ?2, max_tile = ?3, moves = ?4, won = ?5, board = ?6, updated_at = ?7,
	    reached_at = CASE WHEN score = ?2 THEN reached_at ELSE ?7 END`

// whyRefused explains a guarded update of game id that matched no row,
// as a rejection: the game is missing or ended, or claimed since st's
// token, or the stored move count is not count, or the score would go
// down.
func whyRefused(ctx context.Context, tx *sql.Tx, id int64, count int, st store.MoveState) error {
	g, err := liveGame(ctx, tx, id)
	switch {
	case err != nil:
		return err
	case st.Fence != 0 && g.claim != st.Fence:
		return reject(fmt.Errorf("%w: token %d, the game's is %d", store.ErrFenced, st.Fence, g.claim))
	case g.moves != count:
		return reject(fmt.Errorf("%w: stored game has %d moves, not %d", store.ErrConflict, g.moves, count))
	case st.Score < g.score:
		return reject(fmt.Errorf("%w: score would go down from %d to %d", store.ErrInvalid, g.score, st.Score))
	}
	return fmt.Errorf("update of game %d matched nothing for no known reason", id)
}

// EndGame ends game gameID with its final state st (normally the state of
// its last move: st.Moves must match the stored count, else store.ErrConflict).
// Ending an ended game fails with store.ErrGameEnded.
func (s *Store) EndGame(ctx context.Context, gameID int64, st store.MoveState) error {
	if err := store.CheckState(st); err != nil {
		return fmt.Errorf("end game %d: %w", gameID, err)
	}
	var at int64
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		at = now
		if err := s.mlog.fold(ctx, tx, gameID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, updateSnapshot+`, ended_at = ?7
			WHERE id = ?1 AND ended_at IS NULL AND moves = ?4 AND score <= ?2 AND (?8 = 0 OR claim = ?8)`,
			gameID, st.Score, st.MaxTile, st.Moves, st.Won, st.Board, now, st.Fence)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return whyRefused(ctx, tx, gameID, st.Moves, st)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("end game %d: %w", gameID, err)
	}
	s.ranks.Ended(gameID, &st, at)
	return nil
}

// endAsStored ends a game without touching its snapshot.
func (s *Store) endAsStored(ctx context.Context, id int64) error {
	var at int64
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		at = now
		if err := s.mlog.fold(ctx, tx, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE games SET ended_at = ?2, updated_at = ?2 WHERE id = ?1 AND ended_at IS NULL`, id, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("end diverged game %d: %w", id, err)
	}
	s.ranks.Ended(id, nil, at)
	return nil
}

// MarkAssisted records that the AI hinted or played in a human game: the
// game becomes "assisted" from now on and leaves the human leaderboard
// (the player's human best falls back to their best unassisted game). If
// the player already has an assisted game in progress at that size, that
// one is ended first (its score still counts), keeping one game in
// progress per (player, size, kind). Marking an assisted or bot game does
// nothing; marking an ended game fails with store.ErrGameEnded.
func (s *Store) MarkAssisted(ctx context.Context, gameID int64) error {
	var marked bool
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		if err := s.mlog.fold(ctx, tx, gameID); err != nil {
			return err
		}
		g, err := liveGame(ctx, tx, gameID)
		switch {
		case err != nil:
			return err
		case g.kind != store.KindHuman:
			return nil
		}
		if err := s.mlog.foldPlayer(ctx, tx, g.playerID); err != nil {
			return err
		}
		marked = true
		if _, err := tx.ExecContext(ctx, `
			UPDATE games SET ended_at = ?3, updated_at = ?3
			WHERE player_id = ?1 AND size = ?2 AND kind = 'assisted' AND contest = '' AND ended_at IS NULL`,
			g.playerID, g.size, now); err != nil {
			return err
		}
		// The games_offer_best trigger offers the game to the assisted
		// bests as its kind changes (migration 00003).
		if _, err := tx.ExecContext(ctx, `
			UPDATE games SET kind = 'assisted', updated_at = ?2 WHERE id = ?1`,
			gameID, now); err != nil {
			return err
		}
		if g.moves == 0 {
			return nil
		}
		// Recompute the human best if it was this game.
		res, err := tx.ExecContext(ctx, `
			DELETE FROM player_bests WHERE player_id = ? AND size = ? AND kind = 'human' AND game_id = ?`,
			g.playerID, g.size, gameID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n > 0 {
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
				SELECT player_id, size, kind, id, score, reached_at FROM games
				WHERE player_id = ? AND size = ? AND kind = 'human' AND contest = '' AND NOT hidden AND moves > 0
				ORDER BY score DESC, reached_at, id LIMIT 1`,
				g.playerID, g.size); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("mark game %d assisted: %w", gameID, err)
	}
	if marked {
		s.ranks.Assisted(gameID)
	}
	return nil
}

// PlayerGames lists the player's games of every size and kind, newest
// first, at most limit of them (limit <= 0: 100).
func (s *Store) PlayerGames(ctx context.Context, playerID int64, limit int) ([]store.GameSummary, error) {
	if limit <= 0 {
		limit = 100
	}
	if err := s.settle(ctx, func(ctx context.Context, tx *sql.Tx) error { return s.mlog.foldPlayer(ctx, tx, playerID) }); err != nil {
		return nil, fmt.Errorf("games of player %d: %w", playerID, err)
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT id, size, kind, score, max_tile, moves, won, contest, started_at, updated_at, ended_at, hidden
		FROM games WHERE player_id = ? ORDER BY id DESC LIMIT ?`, playerID, limit)
	if err != nil {
		return nil, fmt.Errorf("games of player %d: %w", playerID, err)
	}
	defer rows.Close()
	var out []store.GameSummary
	for rows.Next() {
		var g store.GameSummary
		var kind string
		var started, updated int64
		var ended sql.NullInt64
		if err := rows.Scan(&g.ID, &g.Size, &kind, &g.Score, &g.MaxTile, &g.Moves, &g.Won, &g.Contest, &started, &updated, &ended, &g.Hidden); err != nil {
			return nil, fmt.Errorf("games of player %d: %w", playerID, err)
		}
		g.Kind, g.StartedAt, g.UpdatedAt, g.EndedAt = store.Kind(kind), fromMicros(started), fromMicros(updated), timePtr(ended)
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("games of player %d: %w", playerID, err)
	}
	return out, nil
}

func timePtr(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMicros(v.Int64)
	return &t
}

// HiddenGames says which of the games ids are hidden (store.Moderator).
func (s *Store) HiddenGames(ctx context.Context, ids []int64) (map[int64]bool, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("hidden games: %w", err)
	}
	rows, err := s.read.QueryContext(ctx, `SELECT id FROM games WHERE hidden = 1 AND id IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, fmt.Errorf("hidden games: %w", err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("hidden games: %w", err)
		}
		out[id] = true
	}
	return out, rows.Err()
}
