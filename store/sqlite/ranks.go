package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/ranks"
)

// PlayerRank returns the player's best game of a size and kind with its
// rank, or store.ErrNotFound if they have played no move in such a game.
// The header reads it every few seconds for every player, so it is
// answered from the ranks kept in memory (package ranks), which this
// store's writes keep up to date as they commit: no SQL, and nothing that
// waits for the writer.
func (s *Store) PlayerRank(ctx context.Context, playerID int64, size int, kind store.Kind) (store.Entry, error) {
	if err := store.CheckGame(size, kind); err != nil {
		return store.Entry{}, fmt.Errorf("player rank: %w", err)
	}
	e, err := s.ranks.Rank(ctx, playerID, ranks.Board{Size: size, Kind: kind})
	if errors.Is(err, store.ErrNotFound) {
		return store.Entry{}, fmt.Errorf("rank of player %d (%d×%d %s): %w", playerID, size, size, kind, err)
	}
	if err != nil {
		return store.Entry{}, fmt.Errorf("rank of player %d: %w", playerID, err)
	}
	return e, nil
}

// loadBoard reads every player's best of a board for package ranks.
func (s *Store) loadBoard(ctx context.Context, b ranks.Board) ([]ranks.Row, error) {
	rows, err := s.read.QueryContext(ctx, `
		SELECT b.player_id, p.name, p.fingerprint, b.score, b.reached_at, b.game_id, g.max_tile, g.moves, g.won, g.ended_at
		FROM player_bests b
		JOIN games g ON g.id = b.game_id
		JOIN players p ON p.id = b.player_id
		WHERE b.size = ? AND b.kind = ?`, b.Size, string(b.Kind))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ranks.Row
	for rows.Next() {
		var r ranks.Row
		var ended sql.NullInt64
		if err := rows.Scan(&r.PlayerID, &r.Name, &r.Fingerprint, &r.Key.Score, &r.Key.Reached, &r.Key.Game,
			&r.MaxTile, &r.Moves, &r.Won, &ended); err != nil {
			return nil, err
		}
		r.Ended = ended.Int64
		out = append(out, r)
	}
	return out, rows.Err()
}

// othersEvery is how often the store asks whether another process wrote
// to the file (`ssh2048 play` beside the server, the sqlite3 shell): a
// rank may be that much behind what another process wrote.
const othersEvery = 200 * time.Millisecond

// checkOthers marks the ranks stale if another connection than the
// writer's has committed to the file since it last looked. PRAGMA
// data_version on the writer's connection changes with every commit of
// another connection and never with the writer's own, so it tells
// exactly that. It runs where the writer's connection is free: on the
// writer's goroutine between two groups (othersAfterGroup), or, while the
// writer is idle, on watchOthers'; a query that had to wait for the
// connection would hold up the writer's next group in turn.
func (s *Store) checkOthers() {
	var v int64
	if err := s.write.QueryRow(`PRAGMA data_version`).Scan(&v); err != nil {
		s.log.Warn("db: reading data_version failed", "err", err)
		return
	}
	if s.dataVersion.Swap(v) != v {
		s.ranks.Invalidate()
	}
}

// othersAfterGroup is checkOthers between the writer's groups, at most
// once an othersEvery.
func (s *Store) othersAfterGroup() {
	now := time.Now().UnixNano()
	if due := s.othersDue.Load(); now < due || !s.othersDue.CompareAndSwap(due, now+int64(othersEvery)) {
		return
	}
	s.checkOthers()
}

// watchOthers is checkOthers every othersEvery while the writer commits
// nothing, until Close.
func (s *Store) watchOthers() {
	defer close(s.othersDone)
	t := time.NewTicker(othersEvery)
	defer t.Stop()
	commits := s.w.Commits()
	for {
		select {
		case <-s.stopOthers:
			return
		case <-t.C:
		}
		if c := s.w.Commits(); c != commits {
			commits = c
			continue
		}
		s.checkOthers()
	}
}
