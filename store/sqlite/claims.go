package sqlite

import (
	"context"
	crand "crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// One writer per game between the processes on one database file (the
// server and `ssh2048 play`; migration 00009). Within a process the game
// service keeps the rule; between processes the store does: loading a
// game to play it claims it (a new fencing token, store.SavedGame.Fence), a
// move or end with an older token is refused (store.ErrFenced), and a claim
// that takes the game from another process leaves it a takeover notice,
// which that process's store finds by polling (OnTakeover) and its game
// service turns into the takeover its session is told of at once.

// takeoverPoll is how often a store that has takeover callbacks looks for
// notices: a read of an index that finds nothing, almost always.
const takeoverPoll = 200 * time.Millisecond

// takeoverKeep is how long a notice is kept: long past the poll.
const takeoverKeep = time.Minute

// newNode names a process's open store in claim_node.
func newNode() string {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// takeovers is a store's takeover callbacks and the poller that calls them.
type takeovers struct {
	mu    sync.Mutex
	fns   []func(gameID, token int64)
	stop  chan struct{}
	done  chan struct{}
	after int64 // the last notice seen
}

// claim makes this process the holder of game id, in a write job that
// found or created it (created: it has no moves anywhere), and returns
// the game's new token. The game counts as played now (updated_at), so
// that the size a player switched to is the one a new session opens.
func (s *Store) claim(ctx context.Context, tx *sql.Tx, id, now int64, created bool) (int64, error) {
	var before string
	if err := tx.QueryRowContext(ctx, `SELECT claim_node FROM games WHERE id = ?`, id).Scan(&before); err != nil {
		return 0, fmt.Errorf("claim game %d: %w", id, err)
	}
	// Moves this process logged are folded already (the job folds the
	// player's games first); another process's are folded by replay.
	if before != s.node && !created {
		others, err := s.othersMayHaveLogged(ctx, tx)
		if err != nil {
			return 0, fmt.Errorf("claim game %d: %w", id, err)
		}
		if others {
			folded, err := replayFold(ctx, tx, id)
			if err != nil {
				return 0, fmt.Errorf("claim game %d: %w", id, err)
			}
			if folded {
				s.marked.Mark(id)
			}
		}
	}
	var token int64
	err := tx.QueryRowContext(ctx, `
		UPDATE games SET claim = claim + 1, claim_node = ?2, updated_at = max(updated_at, ?3) WHERE id = ?1
		RETURNING claim`, id, s.node, now).Scan(&token)
	if err != nil {
		return 0, fmt.Errorf("claim game %d: %w", id, err)
	}
	if before == "" || before == s.node {
		return token, nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM takeovers WHERE at < ?`, now-takeoverKeep.Microseconds()); err != nil {
		return 0, fmt.Errorf("claim game %d: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO takeovers (game_id, token, node, at) VALUES (?, ?, ?, ?)`, id, token, before, now); err != nil {
		return 0, fmt.Errorf("claim game %d: notice: %w", id, err)
	}
	return token, nil
}

// othersMayHaveLogged reports whether another process may have logged
// moves since this store opened, when it folded the whole log: whether
// another connection has committed to the file since. PRAGMA
// data_version on the writer's connection changes with every commit of
// another connection and never with its own. Until one has, a claim need
// not read the log (which has no index by game) for another's moves.
func (s *Store) othersMayHaveLogged(ctx context.Context, tx *sql.Tx) (bool, error) {
	if s.othersCommitted.Load() {
		return true, nil
	}
	var v int64
	if err := tx.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return false, err
	}
	if v != s.openedVersion {
		s.othersCommitted.Store(true)
		return true, nil
	}
	return false, nil
}

// OnTakeover calls fn with every game this store claimed that another
// process on the database claimed since, and the game's new token, from
// a goroutine of its own, within takeoverPoll; until Close. fn must not
// block.
func (s *Store) OnTakeover(fn func(gameID, token int64)) {
	t := &s.takeovers
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fns = append(t.fns, fn)
	if t.stop == nil {
		t.stop, t.done = make(chan struct{}), make(chan struct{})
		go s.pollTakeovers()
	}
}

// pollTakeovers looks for this store's takeover notices until Close.
func (s *Store) pollTakeovers() {
	t := &s.takeovers
	defer close(t.done)
	tick := time.NewTicker(takeoverPoll)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), takeoverPoll*5)
		err := s.readTakeovers(ctx)
		cancel()
		if err != nil {
			s.log.Warn("db: read takeover notices", "err", err)
		}
	}
}

// readTakeovers calls the callbacks with the notices not seen yet.
func (s *Store) readTakeovers(ctx context.Context) error {
	t := &s.takeovers
	rows, err := s.read.QueryContext(ctx, `SELECT seq, game_id, token FROM takeovers WHERE node = ? AND seq > ? ORDER BY seq`, s.node, t.after)
	if err != nil {
		return err
	}
	defer rows.Close()
	t.mu.Lock()
	fns := t.fns
	t.mu.Unlock()
	for rows.Next() {
		var id, token int64
		if err := rows.Scan(&t.after, &id, &token); err != nil {
			return err
		}
		for _, fn := range fns {
			fn(id, token)
		}
	}
	return rows.Err()
}

// stopTakeovers ends the poller, if any, at Close.
func (s *Store) stopTakeovers() {
	t := &s.takeovers
	t.mu.Lock()
	stop, done := t.stop, t.done
	t.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}
