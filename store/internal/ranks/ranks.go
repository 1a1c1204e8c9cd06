// Package ranks keeps every board's ranks in memory, for the stores'
// PlayerRank: a player's rank is the number of bests ahead of theirs in
// an order-statistics structure (tree), counted in O(log n), with no SQL
// and a lock held for that count only. Both stores share it.
//
// An Index is loaded from the store's bests, a board at a time, the first
// time a rank of that board is asked for. From then on the store tells it
// what its own writes did once they have committed (Opened, Moved, Ended,
// Renamed and the rest): a move offers its game to the player's best by
// the rule the stores' games_offer_best trigger keeps, so the tree stays
// what the store's player_bests is. What the index cannot follow (a game it
// never saw opened, a human game turned assisted, which recomputes a best)
// marks the board dirty, and the next rank of it waits for a load. What
// another process or node wrote, which the store detects its own way
// (Invalidate), marks it stale: it answers as it is while it loads again
// in the background. Events that come while a board loads are kept and
// applied again on top of what the load read, so that a load never takes
// back a write that committed after the load's read: each event carries
// state (a game's snapshot, a name), and applying one twice, or an older
// one after a newer, changes nothing.
//
// A write only queues what it did, under a lock of its own held for an
// append: the moves of every session would otherwise queue for the
// index's lock, and under a load that keeps every core busy a lock that
// many goroutines want is handed from one to the next only as fast as the
// scheduler runs them. The queue is applied in order, in a batch, by the
// next rank (so a rank always includes every write acknowledged before
// it), by a load, or by the write that finds it long.
package ranks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// Board is one leaderboard: a size and a kind.
type Board struct {
	Size int
	Kind store.Kind
	// Contest, if not empty, makes this a contest's board of a size
	// (Kind empty): every game of the contest ranks, one row each, and a
	// player's row is their newest game (store.ContestRanker).
	Contest string
}

// Row is one player's best game of a board, as a store reads it.
type Row struct {
	PlayerID    int64
	Name        string
	Fingerprint string
	Key         Key // the best's score, when it was reached, its game
	MaxTile     int
	Moves       int
	Won         bool
	Ended       int64 // unix µs; 0 while in progress
}

// Loader reads every player's best of a board, with their names.
type Loader func(ctx context.Context, b Board) ([]Row, error)

// Index is the ranks of every board asked for so far. It is safe for
// concurrent use.
type Index struct {
	load   Loader
	maxAge time.Duration
	// changed, if set, is called (it must be quick) when a write of this
	// process may have changed a best.
	changed func()

	// qmu guards queue: the writes told of and not yet applied, in
	// order; spare is the last batch's slice, for the next.
	qmu          sync.Mutex
	queue, spare []op

	mu      sync.Mutex
	boards  map[Board]*board
	names   map[int64]name
	live    map[int64]liveGame
	liveBy  map[seat]int64 // the free-play game in progress of a player's board, in live
	loads   int            // loads in flight
	pending []event        // the events applied while loads are in flight
}

type board struct {
	tree     tree
	best     map[int64]*Row
	games    map[int64]*Row // a contest's board: every game's row
	ready    bool           // loaded at least once
	dirty    bool           // this process's writes changed it in a way it cannot follow: load before the next rank
	stale    bool           // others changed it: load again, answering meanwhile
	took     time.Duration  // what the last load took
	loadedAt time.Time      // when the last load began
	loading  chan struct{}  // closed when the load in flight ends
	err      error          // the last load's failure
}

type name struct{ name, fingerprint string }

// seat is a player's place on a board.
type seat struct {
	player int64
	board  Board
}

// liveGame is what the index knows of a game this process opened: whose
// it is and its last committed state, for the reached time of its next
// move (a move that changes the score reaches it now).
type liveGame struct {
	player  int64
	board   Board
	contest string // a contest's games rank on their own boards, not here
	score   int
	reached int64
	maxTile int
	moves   int
	won     bool
	hidden  bool // an admin took it off the boards: followed, never offered
}

// op is a write told of (Opened, Moved and the rest), queued.
type op struct {
	kind    opKind
	game    int64 // opMerged: the account merged into player
	player  int64
	board   Board
	contest string // opOpened
	st      store.MoveState
	ended   bool  // opEnded: st holds the final state (else: as stored)
	at      int64 // when it committed, unix µs (opOpened: when its score was reached)
	name    string
	fp      string
	done    func(contest string) bool // opContests
	hidden  bool                      // opOpened, opHidden
}

type opKind uint8

const (
	opOpened opKind = iota
	opMoved
	opEnded
	opReplaced
	opAssisted
	opRenamed
	opContests
	opMerged
	opHidden
)

// drainAt is the queue's length at which the write that reaches it
// applies it, when no rank has for a while.
const drainAt = 4096

// tell queues o, and applies the queue if it is long.
func (ix *Index) tell(o op) {
	ix.qmu.Lock()
	ix.queue = append(ix.queue, o)
	n := len(ix.queue)
	ix.qmu.Unlock()
	if ix.changed != nil && o.kind != opOpened && o.kind != opContests {
		ix.changed()
	}
	if n >= drainAt {
		ix.mu.Lock()
		ix.drain()
		ix.mu.Unlock()
	}
}

// drain applies the queued writes, in order (ix.mu held).
func (ix *Index) drain() {
	ix.qmu.Lock()
	q := ix.queue
	ix.queue, ix.spare = ix.spare[:0], nil
	ix.qmu.Unlock()
	for i := range q {
		ix.do(&q[i])
	}
	clear(q)
	ix.qmu.Lock()
	if ix.spare == nil {
		ix.spare = q[:0]
	}
	ix.qmu.Unlock()
}

// do applies one write told of (ix.mu held).
func (ix *Index) do(o *op) {
	switch o.kind {
	case opHidden:
		ix.hide(o.player, o.game, o.hidden)
	case opOpened:
		ix.opened(o.game, o.player, o.board, o.contest, o.st, o.at, o.hidden)
	case opMoved:
		ix.offer(o.game, o.st, o.at, 0)
	case opEnded:
		ix.ended(o.game, o.st, o.ended, o.at)
	case opReplaced:
		ix.replaced(o.player, o.board, o.at)
	case opAssisted:
		ix.assisted(o.game)
	case opRenamed:
		ix.record(event{rename: true, row: Row{PlayerID: o.player, Name: o.name, Fingerprint: o.fp}})
	case opMerged:
		// from's games are to's now and its games in progress ended:
		// the index follows none of it, and merges are rare.
		for id, g := range ix.live {
			if g.player == o.game {
				ix.forget(id)
			}
		}
		ix.invalidate(0)
	case opContests:
		for id, g := range ix.live {
			if g.contest != "" && o.done(g.contest) {
				delete(ix.live, id)
			}
		}
		// Their games ended: a contest's board is read again if asked.
		for b := range ix.boards {
			if b.Contest != "" && o.done(b.Contest) {
				delete(ix.boards, b)
			}
		}
	}
}

// event is an offer of a game's state to a player's best, or a new name.
type event struct {
	rename bool
	board  Board
	row    Row
}

// Option configures New.
type Option func(*Index)

// MaxAge has a board loaded again once its last load is older than d,
// whatever the store detected: for a store that may miss what other
// nodes wrote.
func MaxAge(d time.Duration) Option { return func(ix *Index) { ix.maxAge = d } }

// OnChange has changed called, quickly, when this process tells of a
// write that may have changed a best or a name.
func OnChange(changed func()) Option { return func(ix *Index) { ix.changed = changed } }

// New returns an empty index that loads boards with load.
func New(load Loader, opts ...Option) *Index {
	ix := &Index{load: load, boards: map[Board]*board{}, names: map[int64]name{}, live: map[int64]liveGame{}, liveBy: map[seat]int64{}}
	for _, o := range opts {
		o(ix)
	}
	return ix
}

// Rank returns the player's best of a board with its rank, or
// store.ErrNotFound. A board never loaded, or one this process's writes
// could not follow (dirty), is loaded first, and the rank waits for it.
// A board that only others changed (stale, or older than MaxAge) answers
// as it is while it loads again in the background, at most once per
// reloadGap: a large board takes seconds to read, and the ranks of a busy
// server must not wait for that, nor the database read it without pause
// while other nodes play.
func (ix *Index) Rank(ctx context.Context, player int64, b Board) (store.Entry, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	bd, err := ix.board(ctx, b)
	if err != nil {
		return store.Entry{}, err
	}
	return ix.entry(bd, player)
}

// ContestRank is store.ContestRanker.ContestRank from the index: the
// player's newest game of a contest of one size with its rank on the
// contest's board, and how many games that board has, or
// store.ErrNotFound.
func (ix *Index) ContestRank(ctx context.Context, player int64, contest string, size int) (store.Entry, int, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	bd, err := ix.board(ctx, Board{Size: size, Contest: contest})
	if err == nil {
		var e store.Entry
		if e, err = ix.entry(bd, player); err == nil {
			return e, bd.tree.len(), nil
		}
	}
	return store.Entry{}, 0, fmt.Errorf("rank of player %d in %s: %w", player, contest, err)
}

// board returns board b ready to answer, loading it if need be (ix.mu
// held, and held again on return).
func (ix *Index) board(ctx context.Context, b Board) (*board, error) {
	ix.drain()
	for try := 0; ; try++ {
		bd := ix.boards[b]
		if bd == nil {
			bd = &board{best: map[int64]*Row{}}
			ix.boards[b] = bd
		}
		if bd.ready && !bd.dirty {
			if (bd.stale || ix.maxAge > 0 && time.Since(bd.loadedAt) > ix.maxAge) &&
				bd.loading == nil && time.Since(bd.loadedAt) >= reloadGap(bd.took) {
				done, from := ix.startLoad(bd)
				go ix.finishLoad(context.WithoutCancel(ctx), b, bd, done, from)
			}
			return bd, nil
		}
		if try == 2 {
			if bd.err != nil {
				return nil, bd.err
			}
			return nil, fmt.Errorf("load the ranks of %d×%d %s%s: changed while loading", b.Size, b.Size, b.Kind, b.Contest)
		}
		done := bd.loading
		if done == nil {
			var from int
			done, from = ix.startLoad(bd)
			ix.mu.Unlock()
			ix.finishLoad(ctx, b, bd, done, from)
		} else {
			ix.mu.Unlock()
			select {
			case <-done:
			case <-ctx.Done():
				ix.mu.Lock()
				return nil, ctx.Err()
			}
		}
		ix.mu.Lock()
		ix.drain()
	}
}

// PlayerRank is store.Store.PlayerRank from the index: the player's best
// of a size and kind with its rank, or store.ErrNotFound, wrapped as the
// stores wrap their errors.
func (ix *Index) PlayerRank(ctx context.Context, playerID int64, size int, kind store.Kind) (store.Entry, error) {
	if err := store.CheckGame(size, kind); err != nil {
		return store.Entry{}, fmt.Errorf("player rank: %w", err)
	}
	e, err := ix.Rank(ctx, playerID, Board{Size: size, Kind: kind})
	if errors.Is(err, store.ErrNotFound) {
		return store.Entry{}, fmt.Errorf("rank of player %d (%d×%d %s): %w", playerID, size, size, kind, err)
	}
	if err != nil {
		return store.Entry{}, fmt.Errorf("rank of player %d: %w", playerID, err)
	}
	return e, nil
}

// reloadGap is the least time between two loads of a board that others
// changed: a second, or ten times what its last load took.
func reloadGap(took time.Duration) time.Duration { return max(time.Second, 10*took) }

// entry is the player's row of a loaded board (ix.mu held).
func (ix *Index) entry(bd *board, player int64) (store.Entry, error) {
	r := bd.best[player]
	if r == nil {
		return store.Entry{}, store.ErrNotFound
	}
	n := ix.names[player]
	e := store.Entry{
		Rank: bd.tree.countAhead(r.Key) + 1, PlayerID: player, Name: n.name, Fingerprint: n.fingerprint,
		Score: r.Key.Score, MaxTile: r.MaxTile, Moves: r.Moves, Won: r.Won, GameID: r.Key.Game,
	}
	if r.Ended != 0 {
		t := time.UnixMicro(r.Ended)
		e.Ended = &t
	}
	return e, nil
}

// startLoad marks bd loading (ix.mu held, the queue drained: what
// committed before the load's read is in it) and returns the channel
// closed when it is done and where its events start in pending.
func (ix *Index) startLoad(bd *board) (done chan struct{}, from int) {
	done = make(chan struct{})
	bd.loading, bd.stale, bd.dirty, bd.loadedAt = done, false, false, time.Now()
	ix.loads++
	return done, len(ix.pending)
}

// finishLoad reads board b, puts it in place with the events applied
// since startLoad on top, and closes done.
func (ix *Index) finishLoad(ctx context.Context, b Board, bd *board, done chan struct{}, from int) {
	rows, err := ix.load(ctx, b)

	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.drain() // into pending, for the replay below
	if err == nil {
		bd.tree, bd.best, bd.ready = tree{}, make(map[int64]*Row, len(rows)), true
		if b.Contest != "" {
			bd.games = make(map[int64]*Row, len(rows))
		}
		for i := range rows {
			r := &rows[i]
			ix.names[r.PlayerID] = name{r.Name, r.Fingerprint}
			bd.tree.insert(r.Key)
			if bd.games != nil {
				bd.games[r.Key.Game] = r
				if cur := bd.best[r.PlayerID]; cur != nil && cur.Key.Game > r.Key.Game {
					continue
				}
			}
			bd.best[r.PlayerID] = r
		}
		for _, ev := range ix.pending[from:] {
			ix.apply(ev)
		}
		bd.err = nil
	} else {
		bd.stale = true
		bd.err = fmt.Errorf("load the ranks of %d×%d %s%s: %w", b.Size, b.Size, b.Kind, b.Contest, err)
	}
	bd.took = time.Since(bd.loadedAt)
	ix.loads--
	if ix.loads == 0 {
		ix.pending = nil
	}
	bd.loading = nil
	close(done)
}

// Invalidate marks every board stale: another process or node changed
// the store.
func (ix *Index) Invalidate() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, bd := range ix.boards {
		bd.stale = true
	}
}

// invalidate marks the boards of one size dirty, or every board for
// size 0.
func (ix *Index) invalidate(size int) {
	for b, bd := range ix.boards {
		if size == 0 || b.Size == size {
			bd.dirty = true
		}
	}
}

// Opened tells of a game this process opened (created or loaded) to play:
// its player, board, contest ("" for free play) and stored state, reached
// when its score was reached.
// A hidden game (an admin's hide) is followed but never offered to a board.
func (ix *Index) Opened(game, player int64, b Board, contest string, st store.MoveState, reached int64, hidden bool) {
	ix.tell(op{kind: opOpened, game: game, player: player, board: b, contest: contest, st: st, at: reached, hidden: hidden})
}

func (ix *Index) opened(game, player int64, b Board, contest string, st store.MoveState, reached int64, hidden bool) {
	ix.live[game] = liveGame{player: player, board: b, contest: contest, score: st.Score, reached: reached,
		maxTile: st.MaxTile, moves: st.Moves, won: st.Won, hidden: hidden}
	if hidden {
		return
	}
	if contest == "" {
		ix.liveBy[seat{player, b}] = game
		return
	}
	// Every game of a contest ranks on its board, its first move or not.
	ix.record(event{board: Board{Size: b.Size, Contest: contest}, row: Row{PlayerID: player,
		Key: Key{Score: st.Score, Reached: reached, Game: game}, MaxTile: st.MaxTile, Moves: st.Moves, Won: st.Won}})
}

// forget drops game from the live games.
func (ix *Index) forget(game int64) {
	g, ok := ix.live[game]
	if !ok {
		return
	}
	delete(ix.live, game)
	if s := (seat{g.player, g.board}); g.contest == "" && ix.liveBy[s] == game {
		delete(ix.liveBy, s)
	}
}

// Hidden tells of an admin's hide or unhide, committed: of one game, or
// of every game of player when game is 0. The games this process plays
// follow it, and every board is read again, as the store's bests were
// recomputed.
func (ix *Index) Hidden(player, game int64, hidden bool) {
	ix.tell(op{kind: opHidden, player: player, game: game, hidden: hidden})
}

func (ix *Index) hide(player, game int64, hidden bool) {
	for id, g := range ix.live {
		if id == game || game == 0 && g.player == player {
			g.hidden = hidden
			ix.live[id] = g
		}
	}
	ix.invalidate(0)
}

// ContestsEnded tells of the contests' games ended all at once (a day
// over, a race recorded): those of the contests ended says are
// forgotten.
func (ix *Index) ContestsEnded(ended func(contest string) bool) {
	ix.tell(op{kind: opContests, done: ended})
}

// Moved tells of a move of game committed at now (unix µs) with state st.
func (ix *Index) Moved(game int64, st store.MoveState, now int64) {
	ix.tell(op{kind: opMoved, game: game, st: st, at: now})
}

// Ended tells of game ending at now with final state st (EndGame), or as
// stored if st is nil.
func (ix *Index) Ended(game int64, st *store.MoveState, now int64) {
	o := op{kind: opEnded, game: game, at: now}
	if st != nil {
		o.st, o.ended = *st, true
	}
	ix.tell(o)
}

func (ix *Index) ended(game int64, st store.MoveState, final bool, now int64) {
	g, ok := ix.live[game]
	if !ok {
		ix.invalidate(0)
		return
	}
	if !final {
		st = store.MoveState{Score: g.score, MaxTile: g.maxTile, Moves: g.moves, Won: g.won}
	}
	ix.offer(game, st, now, now)
	ix.forget(game)
}

// Replaced tells of a new game of a board ending the player's game in
// progress there at now: if that game is their best, it has ended.
func (ix *Index) Replaced(player int64, b Board, now int64) {
	ix.tell(op{kind: opReplaced, player: player, board: b, at: now})
}

func (ix *Index) replaced(player int64, b Board, now int64) {
	if id, ok := ix.liveBy[seat{player, b}]; ok {
		ix.forget(id)
	}
	bd := ix.boards[b]
	if bd == nil {
		return
	}
	if r := bd.best[player]; r != nil && r.Ended == 0 {
		ev := event{board: b, row: *r}
		ev.row.Ended = now
		ix.record(ev)
	}
}

// Assisted tells of a human game turned assisted: the player's human best
// was recomputed from their other games, which the index does not keep,
// so the boards of its size load again.
func (ix *Index) Assisted(game int64) {
	ix.tell(op{kind: opAssisted, game: game})
}

func (ix *Index) assisted(game int64) {
	g, ok := ix.live[game]
	if !ok {
		ix.invalidate(0)
		return
	}
	ix.forget(game)
	size := g.board.Size
	g.board.Kind = store.KindAssisted
	if old, ok := ix.liveBy[seat{g.player, g.board}]; ok {
		ix.forget(old) // ended by the same write
	}
	ix.live[game] = g
	ix.liveBy[seat{g.player, g.board}] = game
	ix.invalidate(size)
}

// Renamed tells of a player's name as stored now, and of their
// fingerprint (players.fingerprint; "": as it was).
func (ix *Index) Renamed(player int64, newName, fingerprint string) {
	ix.tell(op{kind: opRenamed, player: player, name: newName, fp: fingerprint})
}

// AccountChanged tells of what a write of accounts changed
// (accounts.Change): an account's new name, if name is not "", and an
// account merged into it, if merged is not 0.
func (ix *Index) AccountChanged(account, merged int64, name string) {
	if name != "" {
		ix.Renamed(account, name, "")
	}
	if merged != 0 {
		ix.tell(op{kind: opMerged, player: account, game: merged})
	}
}

// offer offers game's state st, committed at now and ended at ended (0:
// not), to its player's best, as the games_offer_best trigger does: a
// free-play game with a move beats the best with a higher score, or the
// same score reached earlier; the best game itself takes its new state.
// A game the index never saw opened makes every board dirty.
func (ix *Index) offer(game int64, st store.MoveState, now, ended int64) {
	g, ok := ix.live[game]
	if !ok {
		ix.invalidate(0)
		return
	}
	if st.Score != g.score {
		g.reached = now
	}
	g.score, g.maxTile, g.moves, g.won = st.Score, st.MaxTile, st.Moves, st.Won
	ix.live[game] = g
	if g.hidden {
		return
	}
	row := Row{PlayerID: g.player, Key: Key{Score: st.Score, Reached: g.reached, Game: game},
		MaxTile: st.MaxTile, Moves: st.Moves, Won: st.Won, Ended: ended}
	switch {
	case g.contest != "":
		ix.record(event{board: Board{Size: g.board.Size, Contest: g.contest}, row: row})
	case st.Moves > 0:
		ix.record(event{board: g.board, row: row})
	}
}

// record applies ev and keeps it for the loads in flight.
func (ix *Index) record(ev event) {
	if ix.loads > 0 {
		ix.pending = append(ix.pending, ev)
	}
	ix.apply(ev)
}

// apply applies ev to the index: a name, or a game's state offered to a
// loaded board.
func (ix *Index) apply(ev event) {
	if ev.rename {
		fp := ev.row.Fingerprint
		if fp == "" {
			cur, ok := ix.names[ev.row.PlayerID]
			if !ok {
				return // the next load reads both
			}
			fp = cur.fingerprint
		}
		ix.names[ev.row.PlayerID] = name{ev.row.Name, fp}
		return
	}
	bd := ix.boards[ev.board]
	if bd == nil || !bd.ready {
		return
	}
	r := &ev.row
	if bd.games != nil {
		ix.applyGame(bd, r)
		return
	}
	cur := bd.best[r.PlayerID]
	switch {
	case cur == nil:
	case cur.Key.Game == r.Key.Game:
		if !newer(r, cur) {
			return
		}
	case !r.Key.ahead(cur.Key):
		return
	}
	if cur != nil {
		// In place, as a new row a move was most of what the index
		// allocated: the row is this board's alone (a contest's board,
		// whose rows two maps share, goes through applyGame).
		bd.tree.remove(cur.Key)
		*cur = *r
	} else {
		cur = new(Row)
		*cur = *r
		bd.best[r.PlayerID] = cur
	}
	bd.tree.insert(cur.Key)
	if _, ok := ix.names[r.PlayerID]; !ok {
		// A player's first best since the load: their name comes with
		// the next load, and until then the board answers for them
		// after one.
		bd.dirty = true
	}
}

// newer says whether r, a state of the game of cur, comes after it: a
// game's state only grows (moves, score), and an end stays.
func newer(r, cur *Row) bool {
	if r.Moves < cur.Moves || (r.Moves == cur.Moves && r.Ended == 0) && cur.Ended != 0 {
		return false
	}
	return r.Key != cur.Key || r.MaxTile != cur.MaxTile || r.Moves != cur.Moves || r.Won != cur.Won || r.Ended != cur.Ended
}

// applyGame puts a game's state on a contest's board (ix.mu held): every
// game has its row there, and a player's newest game is theirs.
func (ix *Index) applyGame(bd *board, r *Row) {
	cur := bd.games[r.Key.Game]
	if cur != nil {
		if !newer(r, cur) {
			return
		}
		bd.tree.remove(cur.Key)
	}
	row := *r
	bd.games[row.Key.Game] = &row
	bd.tree.insert(row.Key)
	if b := bd.best[row.PlayerID]; b == nil || b.Key.Game <= row.Key.Game {
		bd.best[row.PlayerID] = &row
	}
	if _, ok := ix.names[row.PlayerID]; !ok {
		bd.dirty = true
	}
}
