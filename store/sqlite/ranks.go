package sqlite

import (
	"context"
	"database/sql"
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
	return s.ranks.PlayerRank(ctx, playerID, size, kind)
}

// UpsertPlayer is the accounts' login by key (accounts.Methods), which
// also tells the ranks the account's name and fingerprint: a player's
// first best then needs no load of its board for them.
func (s *Store) UpsertPlayer(ctx context.Context, fingerprint, keyType, rawName string) (store.Player, error) {
	p, err := s.Methods.UpsertPlayer(ctx, fingerprint, keyType, rawName)
	if err == nil {
		s.ranks.Renamed(p.ID, p.Name, p.Fingerprint)
	}
	return p, err
}

// loadBoard reads every player's best of a board, or every game of a
// contest's, for package ranks.
func (s *Store) loadBoard(ctx context.Context, b ranks.Board) ([]ranks.Row, error) {
	query, args := ranks.BoardQuery+` WHERE b.size = ? AND b.kind = ?`, []any{b.Size, string(b.Kind)}
	if b.Contest != "" {
		query, args = ranks.ContestQuery+` WHERE g.contest = ? AND g.size = ? AND NOT g.hidden`, []any{b.Contest, b.Size}
		// A contest's board is ordered by its games' rows.
		if err := s.settle(ctx, func(ctx context.Context, tx *sql.Tx) error {
			return s.mlog.foldContest(ctx, tx, b.Contest)
		}); err != nil {
			return nil, err
		}
	} else if err := s.offerMarkedBests(ctx); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out, err := ranks.ScanRows(rows)
	for i := range out {
		if st, ok := s.mlog.latest(out[i].Key.Game); ok {
			out[i].MaxTile, out[i].Moves, out[i].Won = st.MaxTile, st.Moves, st.Won
		}
	}
	return out, err
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
