package sqlite

import (
	"context"
	crand "crypto/rand"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

// The move log (migration 00020). A move is a row of move_log: a few
// bytes in a slot of this process's own, the slots written in turn (a
// ring), so that a group commit of moves of many games writes a page or
// two. Updating each move's game instead wrote the page holding that
// game, a page a move, and the writer spent most of its time writing
// them. A folded move's row is written over, never deleted.
//
// A game's row takes its logged moves later, many at once (a fold): their
// digits on its tail, and the snapshot of the last, which this process
// keeps in memory from the moves it logged (moveLog). The log itself holds
// only what replaying needs (the direction, and when, for reached_at), so
// a process that did not log them folds them by replaying the game
// (replayFold): when it claims the game, and for every game when the file
// is opened (what a process that stopped without folding left).
//
// Whatever reads or changes a game other than a move folds it first, in
// the same transaction: loading it to play (claim), ending it, marking it
// assisted, ending a contest's games, a moderator's write and an accounts'
// merge (doFolded), and the reads that show its moves or snapshot
// (FullGame, PlayerGames, ContestBoard, ContestsPlayed, a contest board's
// load: settle). The bests are offered with the logged state (offer), and
// Leaderboard and the ranks' loads read a logged game's state from memory
// (latest). The writer also folds, a few as each group begins, the games
// whose first logged move has waited foldAfter or is in the older half of
// the ring (foldDue).
//
// Invariant: a game's rows in move_log with seq >= its row's moves are
// exactly its moves from there on, committed and in order; rows below are
// folded, and their slots wait to be written over.

const (
	// foldAfter is how long a game's moves wait in the log before the
	// writer folds them: long enough that a fold takes several moves of a
	// game at once (a player makes a few a second), short enough that
	// readers in other processes (the sqlite3 shell, `ssh2048 scores`)
	// see a game in play nearly as it is.
	foldAfter = 2 * time.Second
	// foldsPerGroup bounds the folds a group makes, so that none of them
	// makes the moves in its group wait for long.
	foldsPerGroup = 8
	// ringSize is how many rows of the log a process writes in turn (its
	// ring): a folded move's row is overwritten, never deleted, because
	// deleting the rows as they were folded cost the writer more than
	// their insertion and made its slowest groups slower still. It holds
	// more moves than come in foldAfter on one node; a move that would
	// overwrite one not yet folded folds that game first.
	ringSize = 1 << 16
)

// loggedGame is a game with moves in the log that its row does not have yet.
type loggedGame struct {
	fence     int64           // the token its moves were logged with
	base      int             // the moves its row had when the first was logged
	digits    []byte          // its logged moves, from move base on (store.MoveDigit)
	state     store.MoveState // after the last
	at        int64           // when the last was committed
	reachedAt int64           // when state.Score was first reached among them
	first     int64           // the number of the first in this process's ring
	firstAt   int64           // when the first was committed
}

// logOrder is a game in the order of its first logged move (its number
// in this process's ring).
type logOrder struct{ id, first int64 }

// undoStep is what a change to moveLog.games replaced, for a rollback.
type undoStep struct {
	id   int64
	prev loggedGame
	had  bool
}

// moveLog is the logged moves of this process. Only the writer's goroutine
// touches it (inside a group's transaction, or at its begin, commit or
// rollback), so it needs no lock but view's; a transaction's changes are
// undone if it rolls back.
type moveLog struct {
	stmts     *moveStatement // runs the folds; nil in tests that make none
	foldAfter time.Duration  // foldAfter, but for tests
	ringSize  int64          // ringSize, but for tests
	// ringBase is the first slot of this process's ring: random, so
	// that processes on one file write rows of their own.
	ringBase int64
	next     int64 // the number of the next move this process logs

	games map[int64]*loggedGame
	order []logOrder // oldest first; an entry whose game's first differs is stale
	head  int        // order[:head] has been folded or is stale

	undo      []undoStep
	beganHead int
	beganLen  int
	beganNext int64

	// view is the state of the logged games as of the last commit, for
	// readers that take a game's snapshot from its row (Leaderboard, the
	// ranks' loads): the row does not have it yet.
	viewMu sync.Mutex
	view   map[int64]store.MoveState
}

func newMoveLog(stmts *moveStatement) *moveLog {
	return &moveLog{
		stmts: stmts, foldAfter: foldAfter, ringSize: ringSize, ringBase: newRingBase(ringSize),
		games: map[int64]*loggedGame{}, view: map[int64]store.MoveState{},
	}
}

// newRingBase draws the first slot of a process's ring of size slots: a
// multiple of size below 2^40 sizes, so that the rings of processes on one
// file are apart.
func newRingBase(size int64) int64 {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return (int64(binary.LittleEndian.Uint64(b[:])>>24) + 1) * size
}

// latest returns the state of game id's last logged move, if it has one
// that is committed and not yet folded.
func (l *moveLog) latest(id int64) (store.MoveState, bool) {
	l.viewMu.Lock()
	st, ok := l.view[id]
	l.viewMu.Unlock()
	return st, ok
}

// pending reports whether this process has logged moves not yet folded.
func (l *moveLog) pending() bool {
	l.viewMu.Lock()
	defer l.viewMu.Unlock()
	return len(l.view) > 0
}

// begin marks the start of a transaction.
func (l *moveLog) begin() {
	l.undo = l.undo[:0]
	l.beganHead, l.beganLen, l.beganNext = l.head, len(l.order), l.next
}

// commit keeps the transaction's changes.
func (l *moveLog) commit() {
	l.viewMu.Lock()
	for _, u := range l.undo {
		if g := l.games[u.id]; g != nil {
			l.view[u.id] = g.state
		} else {
			delete(l.view, u.id)
		}
	}
	l.viewMu.Unlock()
	clear(l.undo)
	l.undo = l.undo[:0]
	if l.head > 1024 && l.head > len(l.order)/2 {
		n := copy(l.order, l.order[l.head:])
		clear(l.order[n:])
		l.order, l.head = l.order[:n], 0
	}
}

// rollback undoes the transaction's changes.
func (l *moveLog) rollback() {
	for i := len(l.undo) - 1; i >= 0; i-- {
		u := l.undo[i]
		if !u.had {
			delete(l.games, u.id)
			continue
		}
		g := l.games[u.id]
		if g == nil {
			g = new(loggedGame)
			l.games[u.id] = g
		}
		*g = u.prev
	}
	clear(l.undo)
	l.undo = l.undo[:0]
	clear(l.order[l.beganLen:])
	l.order, l.head, l.next = l.order[:l.beganLen], l.beganHead, l.beganNext
}

// remember records game id's state before a change.
func (l *moveLog) remember(id int64) {
	g := l.games[id]
	u := undoStep{id: id, had: g != nil}
	if g != nil {
		u.prev = *g
	}
	l.undo = append(l.undo, u)
}

// logged returns game id's logged moves, nil if none.
func (l *moveLog) logged(id int64) *loggedGame { return l.games[id] }

// slot returns the slot of the ring the next move goes in, having folded
// the game whose move it held if that is not folded yet.
func (l *moveLog) slot(ctx context.Context, tx *sql.Tx) (int64, error) {
	for {
		e, ok := l.front()
		if !ok || e.first > l.next-l.ringSize {
			return l.ringBase + l.next%l.ringSize, nil
		}
		if err := l.fold(ctx, tx, e.id); err != nil {
			return 0, err
		}
	}
}

// appended records move seq of game id, logged in the slot slot gave
// at time now.
func (l *moveLog) appended(id int64, seq int, digit byte, st store.MoveState, now int64) {
	l.remember(id)
	g := l.games[id]
	if g == nil {
		g = &loggedGame{fence: st.Fence, base: seq, first: l.next, firstAt: now, digits: make([]byte, 0, 8)}
		l.games[id] = g
		l.order = append(l.order, logOrder{id, l.next})
	}
	l.next++
	if len(g.digits) == 0 || st.Score != g.state.Score {
		g.reachedAt = now
	}
	g.digits = append(g.digits, digit)
	g.state, g.at = st, now
}

// offer offers games ids to their players' bests: a logged game with the
// state of its last logged move, one statement each; the others together,
// as their rows have them.
func (l *moveLog) offer(ctx context.Context, tx *sql.Tx, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	b := make([]byte, 0, 2+len(ids)*8)
	b = append(b, '[')
	for _, id := range ids {
		if g := l.games[id]; g != nil {
			if _, err := l.stmts.exec(offerLoggedGame, id, int64(g.state.Score), g.reachedAt); err != nil {
				return fmt.Errorf("offer game %d to the bests: %w", id, err)
			}
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	if len(b) == 1 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, offerMarked, string(append(b, ']'))); err != nil {
		return fmt.Errorf("offer games to the bests: %w", err)
	}
	return nil
}

// foldSQL writes a game's logged moves into its row: their digits on its
// tail (from the row's count on: another process may have folded some by
// replay) and the snapshot of the last. reached_at stays when the score
// did not change. It matches nothing once another process has claimed the
// game, which folds the log by replay as it does.
const foldSQL = `
	UPDATE games SET score = ?2, max_tile = ?3, moves = ?4, won = ?5, board = ?6, updated_at = ?7,
	    reached_at = CASE WHEN score = ?2 THEN reached_at ELSE ?8 END,
	    tail = tail || substr(?9, moves - ?10 + 1)
	WHERE id = ?1 AND moves BETWEEN ?10 AND ?4 AND (?11 = 0 OR claim = ?11)`

// fold writes game id's logged moves into its row, if it has any.
func (l *moveLog) fold(ctx context.Context, tx *sql.Tx, id int64) error {
	g := l.games[id]
	if g == nil {
		return nil
	}
	st, end := g.state, g.base+len(g.digits)
	n, err := l.stmts.exec(foldMoves, id, int64(st.Score), int64(st.MaxTile), int64(end), st.Won, st.Board, g.at, g.reachedAt,
		string(g.digits), int64(g.base), g.fence)
	if err != nil {
		return fmt.Errorf("fold the logged moves of game %d: %w", id, err)
	}
	if n == 1 && end/store.ChunkLen > g.base/store.ChunkLen {
		if err := cutChunks(ctx, tx, id); err != nil {
			return err
		}
	}
	l.remember(id)
	delete(l.games, id)
	return nil
}

// foldAll folds every logged game.
func (l *moveLog) foldAll(ctx context.Context, tx *sql.Tx) error {
	for id := range l.games {
		if err := l.fold(ctx, tx, id); err != nil {
			return err
		}
	}
	return nil
}

// foldWhere folds the logged games among those query (SELECT id FROM
// games WHERE …) finds.
func (l *moveLog) foldWhere(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	if len(l.games) == 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("find games to fold: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("find games to fold: %w", err)
		}
		if l.games[id] != nil {
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find games to fold: %w", err)
	}
	for _, id := range ids {
		if err := l.fold(ctx, tx, id); err != nil {
			return err
		}
	}
	return nil
}

// playerGamesInPlay finds a player's games in progress, by the index of
// those alone: the planner would walk all of a player's games otherwise.
const playerGamesInPlay = `SELECT id FROM games INDEXED BY games_in_progress WHERE player_id = ? AND ended_at IS NULL`

// foldPlayer folds the player's logged games in progress.
func (l *moveLog) foldPlayer(ctx context.Context, tx *sql.Tx, playerID int64) error {
	return l.foldWhere(ctx, tx, playerGamesInPlay, playerID)
}

// contestGamesInPlay finds a contest's games in progress; saying the
// contest is not empty lets the planner use the contests' partial index.
const contestGamesInPlay = `SELECT id FROM games WHERE contest = ? AND contest <> '' AND ended_at IS NULL`

// foldContest folds the logged games in progress of a contest.
func (l *moveLog) foldContest(ctx context.Context, tx *sql.Tx, contest string) error {
	return l.foldWhere(ctx, tx, contestGamesInPlay, contest)
}

// front returns the oldest logged game's entry, skipping stale ones.
func (l *moveLog) front() (logOrder, bool) {
	for l.head < len(l.order) {
		e := l.order[l.head]
		if g := l.games[e.id]; g != nil && g.first == e.first {
			return e, true
		}
		l.head++
	}
	return logOrder{}, false
}

// foldDue folds the games whose oldest logged move has waited foldAfter,
// or is in the older half of the ring (so that the ring's wrapping, which
// folds as many games as it must, does not have to), at most
// foldsPerGroup of them. The writer calls it as a group begins.
func (l *moveLog) foldDue(ctx context.Context, tx *sql.Tx, now int64) error {
	for range foldsPerGroup {
		e, ok := l.front()
		if !ok || (now-l.games[e.id].firstAt < l.foldAfter.Microseconds() && e.first > l.next-l.ringSize/2) {
			return nil
		}
		if err := l.fold(ctx, tx, e.id); err != nil {
			return err
		}
	}
	return nil
}

// cutChunks moves the full chunks of game id's tail into move_chunks (a
// fold may have appended more than a chunk's worth).
func cutChunks(ctx context.Context, tx *sql.Tx, id int64) error {
	var (
		moves int
		tail  string
	)
	if err := tx.QueryRowContext(ctx, `SELECT moves, tail FROM games WHERE id = ?`, id).Scan(&moves, &tail); err != nil {
		return fmt.Errorf("chunk moves of game %d: %w", id, err)
	}
	if len(tail) < store.ChunkLen {
		return nil
	}
	first := moves - len(tail)
	for len(tail) >= store.ChunkLen {
		if _, err := tx.ExecContext(ctx, `INSERT INTO move_chunks (game_id, first_seq, dirs) VALUES (?, ?, ?)`,
			id, first, tail[:store.ChunkLen]); err != nil {
			return fmt.Errorf("chunk moves of game %d: %w", id, err)
		}
		first, tail = first+store.ChunkLen, tail[store.ChunkLen:]
	}
	if _, err := tx.ExecContext(ctx, `UPDATE games SET tail = ? WHERE id = ?`, tail, id); err != nil {
		return fmt.Errorf("chunk moves of game %d: %w", id, err)
	}
	return nil
}

// logRow is a row of move_log, as a replay reads it.
type logRow struct {
	seq int
	dir engine.Direction
	at  int64
}

// replayFold folds game id's rows in the log into its row by replaying the
// game, whoever logged them, and deletes them: for a game this process
// did not log (a claim of another process's game). It reports whether
// there were moves to fold. It reads the whole log, which has no index
// but its slots: the caller asks only when another process may have
// logged moves of the game.
func replayFold(ctx context.Context, tx *sql.Tx, id int64) (bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT seq, dir, at FROM move_log WHERE game_id = ? ORDER BY seq`, id)
	if err != nil {
		return false, fmt.Errorf("replay the log of game %d: %w", id, err)
	}
	var logged []logRow
	for rows.Next() {
		var r logRow
		if err := rows.Scan(&r.seq, &r.dir, &r.at); err != nil {
			rows.Close()
			return false, fmt.Errorf("replay the log of game %d: %w", id, err)
		}
		logged = append(logged, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("replay the log of game %d: %w", id, err)
	}
	folded, err := replayRows(ctx, tx, id, logged)
	if err != nil {
		return false, err
	}
	if len(logged) > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM move_log WHERE game_id = ?`, id); err != nil {
			return false, fmt.Errorf("replay the log of game %d: %w", id, err)
		}
	}
	return folded, nil
}

// replayRows folds logged, game id's rows of the log in order of seq, into
// its row by replaying the game: those from the row's move count on.
func replayRows(ctx context.Context, tx *sql.Tx, id int64, logged []logRow) (bool, error) {
	if len(logged) == 0 {
		return false, nil
	}
	var (
		size, moves, score int
		seed               int64
		gen                uint8
		tail               string
		reached, updated   int64
	)
	err := tx.QueryRowContext(ctx, `SELECT size, seed, generator, moves, tail, score, reached_at, updated_at FROM games WHERE id = ?`, id).
		Scan(&size, &seed, &gen, &moves, &tail, &score, &reached, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil // no game for them: nothing to fold them into
	}
	if err != nil {
		return false, fmt.Errorf("replay the log of game %d: %w", id, err)
	}
	var fresh []logRow
	for _, r := range logged {
		switch {
		case r.seq < moves:
			continue // folded already
		case r.seq != moves+len(fresh):
			return false, fmt.Errorf("replay the log of game %d: %w: move %d follows %d moves", id, ErrCorrupt, r.seq, moves+len(fresh))
		}
		fresh = append(fresh, r)
	}
	if len(fresh) == 0 {
		return false, nil
	}
	dirs, err := readMoves(ctx, tx, id, tail)
	if err != nil {
		return false, fmt.Errorf("replay the log of game %d: %w", id, err)
	}
	g, err := engine.Generator(gen).Replay(size, seedFromDB(seed), dirs)
	if err != nil {
		return false, fmt.Errorf("replay the log of game %d: %w", id, err)
	}
	digits := make([]byte, len(fresh))
	for i, r := range fresh {
		g.Move(r.dir)
		if g.Score() != score {
			score, reached = g.Score(), r.at
		}
		digits[i] = store.MoveDigit(r.dir)[0]
		updated = max(updated, r.at)
	}
	// The row's move count is its digits', whatever the replay gave: a
	// game whose replay diverged is found so when it is loaded.
	st := store.StateOf(g)
	if _, err := tx.ExecContext(ctx, `
		UPDATE games SET score = ?2, max_tile = ?3, moves = ?4, won = ?5, board = ?6, updated_at = ?7, reached_at = ?8,
		    tail = tail || ?9
		WHERE id = ?1`, id, st.Score, st.MaxTile, moves+len(fresh), st.Won, st.Board, updated, reached, string(digits)); err != nil {
		return false, fmt.Errorf("replay the log of game %d: %w", id, err)
	}
	if err := cutChunks(ctx, tx, id); err != nil {
		return false, err
	}
	return true, nil
}

// replayLog folds every game in the log by replay, and empties it: what a
// process that stopped without folding left (Open). Its rows are read
// once, in order; emptying the table costs its pages, not its rows. A
// process still running on the file (`ssh2048 play`) that logged some of
// them folds them again as they are, which changes nothing (foldSQL).
func replayLog(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("replay the move log: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT game_id, seq, dir, at FROM move_log ORDER BY game_id, seq`)
	if err != nil {
		return fmt.Errorf("replay the move log: %w", err)
	}
	var (
		games   []int64
		byGame  [][]logRow
		found   bool
		scanErr error
	)
	for rows.Next() {
		var (
			id int64
			r  logRow
		)
		if scanErr = rows.Scan(&id, &r.seq, &r.dir, &r.at); scanErr != nil {
			break
		}
		found = true
		if len(games) == 0 || games[len(games)-1] != id {
			games, byGame = append(games, id), append(byGame, nil)
		}
		byGame[len(byGame)-1] = append(byGame[len(byGame)-1], r)
	}
	rows.Close()
	if err := errors.Join(scanErr, rows.Err()); err != nil {
		return fmt.Errorf("replay the move log: %w", err)
	}
	if !found {
		return nil
	}
	for i, id := range games {
		if _, err := replayRows(ctx, tx, id, byGame[i]); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM move_log`); err != nil {
		return fmt.Errorf("replay the move log: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("replay the move log: %w", err)
	}
	return nil
}

// settle runs fold in a write of its own if this process has logged moves
// not yet folded, so that a read that follows finds them in their games'
// rows.
func (s *Store) settle(ctx context.Context, fold func(ctx context.Context, tx *sql.Tx) error) error {
	if !s.mlog.pending() {
		return nil
	}
	return s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, _ int64) error { return fold(ctx, tx) })
}

// doFolded is the writer's do for the rare writes that change or compare
// games they do not name (a moderator's, an accounts' merge): it folds
// the whole log first, in the same transaction.
func (s *Store) doFolded(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx, now int64) error) error {
	return s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
		if err := s.mlog.foldAll(ctx, tx); err != nil {
			return err
		}
		return fn(ctx, tx, now)
	})
}

// Link is the accounts' Link (store.Accounts) on a write that folds the
// move log first.
func (s *Store) Link(ctx context.Context, codeHash []byte, fingerprint string, merge bool) (store.LinkResult, error) {
	return s.linker.Link(ctx, codeHash, fingerprint, merge)
}
