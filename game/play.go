package game

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game/latest"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// Play is one open game, held by one seat. Its methods are safe for
// concurrent use; moves are committed one at a time, in order.
type Play struct {
	seat  *Seat
	key   gameKey // changes (rekey) only with both mu and the service's lock held
	guest bool
	// hidden: an admin took the game off the boards, and off the
	// spectators' lists (store.SavedGame.Hidden as loaded, then as Live
	// last asked the store: refreshHidden). Not under mu, which a move
	// holds for as long as its commit takes.
	hidden atomic.Bool

	mu       sync.Mutex
	id       int64 // the store's game id; 0 for a guest
	fence    int64 // the token the store claimed the game with (store.SavedGame.Fence)
	game     *engine.Game
	before   *engine.Game // game before the move being committed (move), reused from move to move
	revoked  bool         // a newer session holds the game
	failed   error
	ended    bool
	feed     *feed     // the game's spectators, once it has had any
	deadline time.Time // a contest's end: no move after it; zero for free play
	hook     MoveHook  // the contest the game is part of (a race), told of every move
	// contestEnded: the store ended the game with its contest while this
	// session held it (refused): its time is up, whatever this node's
	// clock says of deadline.
	contestEnded bool
}

// load fetches the game from the store. A game that is over but was never
// marked ended (the server stopped between the two writes) is ended now and
// a new one started.
func (p *Play) load(ctx context.Context, fresh bool) (*store.SavedGame, error) {
	st := p.seat.svc.store
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if fresh {
		return st.NewGame(ctx, p.key.player, p.key.size, p.key.kind)
	}
	g, err := st.LoadOrCreateGame(ctx, p.key.player, p.key.size, p.key.kind)
	if err != nil || !g.Engine.Over() {
		return g, err
	}
	if err := st.EndGame(ctx, g.ID, store.StateOf(g.Engine)); err != nil {
		return nil, err
	}
	return st.NewGame(ctx, p.key.player, p.key.size, p.key.kind)
}

// revoke stops p from committing further moves and, if tell is set, tells
// its session. A session reopening a game it holds (a new game, say)
// supersedes its own Play without being told anything.
func (p *Play) revoke(tell bool) {
	p.mu.Lock()
	already := p.revoked
	p.revoked = true
	p.mu.Unlock()
	if tell && !already && p.seat.takenOver != nil {
		p.seat.takenOver(ErrTakenOver)
	}
}

// Close gives up the game; it stays in the store, ready to resume. Plays
// still open when their seat closes are closed then.
func (p *Play) Close() {
	if p.guest {
		return
	}
	p.seat.svc.release(p)
	p.seat.forget(p)
	p.seat.svc.releaseHold(p)
	// Not on the caller's goroutine: it takes p's lock, which a move
	// waiting for a slow store holds, and the session must end all the
	// same (within its notice's grace, on a shutdown).
	go p.announceLeft()
}

// ID returns the game's id in the store, 0 for a guest's game.
func (p *Play) ID() int64 { return p.id }

// Kind returns the game's kind; it changes from human to assisted when
// the AI helps.
func (p *Play) Kind() store.Kind {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.key.kind
}

// State returns the game as the bot protocol shows it, after a command
// whose result was last (the zero Result before any command).
func (p *Play) State(last engine.Result) wire.State {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.game.Board()
	n := b.Size()
	rows := make([][]int, n)
	for r := range rows {
		rows[r] = make([]int, n)
		for c := range rows[r] {
			rows[r][c] = b.Value(r, c)
		}
	}
	return wire.State{
		Board:  rows,
		Score:  p.game.Score(),
		Moves:  p.game.Moves(),
		Moved:  last.Moved,
		Gained: last.Gained,
		Won:    p.game.Won(),
		Over:   p.game.Over(),
	}
}

// The accessors below mirror engine.Game's, so that a screen can show a
// Play as it would a game.

// Board returns the current board.
func (p *Play) Board() engine.Board { return lockedGet(p, (*engine.Game).Board) }

// Size returns the board size.
func (p *Play) Size() int { return p.key.size }

// Score returns the score so far.
func (p *Play) Score() int { return lockedGet(p, (*engine.Game).Score) }

// Moves returns the number of moves that changed the board.
func (p *Play) Moves() int { return lockedGet(p, (*engine.Game).Moves) }

// MaxTile returns the value of the largest tile.
func (p *Play) MaxTile() int { return lockedGet(p, (*engine.Game).MaxTile) }

// Won reports whether the target tile has been reached.
func (p *Play) Won() bool { return lockedGet(p, (*engine.Game).Won) }

// Over reports whether no move can change the board.
func (p *Play) Over() bool { return lockedGet(p, (*engine.Game).Over) }

func lockedGet[T any](p *Play, get func(*engine.Game) T) T {
	p.mu.Lock()
	defer p.mu.Unlock()
	return get(p.game)
}

// Move plays d and returns once the move is durable; a move that changes
// nothing is not stored. When the move ends the game, the end is recorded
// too. Errors: ErrTakenOver (a newer session has the game; the seat's
// session is being told to end), ErrOver, or a storage error, after which
// the game in memory may be ahead of the store, so the Play refuses
// further moves; the session should end and the player resume from what
// was stored.
func (p *Play) Move(ctx context.Context, d engine.Direction) (engine.Result, error) {
	res, err := p.move(ctx, d)
	if err == nil && res.Moved && p.hook != nil {
		// Not under p.mu: the race reads every racer's game.
		p.hook.Moved(p, res.Gained)
	}
	return res, err
}

// move is Move but for telling the hook.
func (p *Play) move(ctx context.Context, d engine.Direction) (engine.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.revoked:
		return engine.Result{}, ErrTakenOver
	case p.failed != nil:
		return engine.Result{}, p.failed
	case p.ended:
		return engine.Result{}, ErrOver
	case p.contestEnded || !p.deadline.IsZero() && !p.seat.svc.now().Before(p.deadline):
		return engine.Result{}, ErrTimeUp
	}
	if p.guest {
		res := p.game.Move(d)
		p.ended = p.game.Over()
		return res, nil
	}
	// A move the store refuses is not the game's: everything that reads
	// the Play (a race's standings and result, spectators) goes on
	// seeing the game as it was before it.
	p.before = p.game.CopyTo(p.before)
	res := p.game.Move(d)
	if !res.Moved {
		return res, nil
	}
	if err := p.commit(ctx, d); err != nil {
		p.game, p.before = p.before, p.game
		return engine.Result{}, err
	}
	if p.game.Over() {
		// Should the server stop before this second write, or the write
		// fail, the next Open finds the game over and ends it then.
		if err := p.end(ctx); err != nil {
			return engine.Result{}, err
		}
	}
	if p.feed != nil {
		// The spectators see the move once the player's own frame of it
		// is written (Seat.Shown), or SpectatorLag after it: waking
		// hundreds of them must not delay the player's frame.
		p.feed.UpdateBeforeFlush(func(snap *Snapshot) {
			p.fill(snap)
			snap.Last = res
		}, SpectatorLag)
		p.seat.ToShow(p.feed)
	}
	p.announce(res)
	return res, nil
}

// commit stores the move just played; p.mu is held.
//
// Unlike the game's other writes, a move gets no writeTimeout: a store
// answers every write it has queued (its writer acknowledges each, and
// bounds a group's transaction itself), so a deadline could only make a
// slow store drop a move it would have written, and its timer was a
// good part of what a move allocates.
func (p *Play) commit(ctx context.Context, d engine.Direction) error {
	ctx = context.WithoutCancel(ctx)
	seq := p.game.Moves() - 1
	st := store.StateOf(p.game)
	st.Fence = p.fence
	err := p.seat.svc.store.AppendMove(ctx, p.id, seq, d, st)
	switch {
	case errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrGameEnded) || errors.Is(err, store.ErrFenced):
		return p.refused(ctx, err)
	case err != nil:
		return p.fail(fmt.Errorf("save move %d of game %d: %w", seq, p.id, err))
	}
	return nil
}

// refused handles a move the store refused as the game is no longer this
// session's to write (err: store.ErrConflict, ErrGameEnded or
// ErrFenced); nothing of it was applied. p.mu is held.
//
// Another session moved, restarted or claimed this game after we loaded
// it: a takeover, which the session is told of. Or the session's key
// joined another account (link --merge), which ended this game for the
// account's own: the session is told so, not of a newer session that
// does not exist. A game that moved to that account and goes on was
// opened by a session of it (the service's one writer per game knows the
// game by the account it was opened as): a takeover. Or the game's
// contest ended it in the store while this move was on its way (a
// race's owner, on another node, recorded the race as its clock ran
// out; a day's dailies were ended): a newer session would have claimed
// the game first (its fencing token, which the store checks before the
// end), so the session still holds it and the move came too late:
// ErrTimeUp, as for a move after the deadline, and the session is told
// nothing.
func (p *Play) refused(ctx context.Context, err error) error {
	g, ferr := p.seat.svc.store.FullGame(ctx, p.id)
	moved := ferr == nil && g.PlayerID != p.key.player && g.EndedAt != nil
	if !moved && p.key.contest != "" && errors.Is(err, store.ErrGameEnded) {
		p.contestEnded = true
		return ErrTimeUp
	}
	p.revoked = true
	why := ErrTakenOver
	if moved {
		why = ErrMovedAccount
	}
	if p.seat.takenOver != nil {
		p.seat.takenOver(why)
	}
	return why
}

// fail records a write of the game that failed, after which the Play
// refuses moves (see Move), and logs it, once: the player's screen says
// only that the move was not saved; p.mu is held.
func (p *Play) fail(err error) error {
	p.failed = err
	p.seat.svc.log.Error("game not saved", "game", p.id, "player", p.key.player, "err", err)
	return err
}

// end records that the game is over; p.mu is held.
func (p *Play) end(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	ms := store.StateOf(p.game)
	ms.Fence = p.fence
	err := p.seat.svc.store.EndGame(ctx, p.id, ms)
	switch {
	case errors.Is(err, store.ErrFenced):
		p.revoked = true
		if p.seat.takenOver != nil {
			p.seat.takenOver(ErrTakenOver)
		}
		return ErrTakenOver
	case errors.Is(err, store.ErrGameEnded) && p.key.contest != "":
		// The game's contest ended it after its last move was stored
		// (see refused): it is ended, with that move.
		p.ended = true
		return nil
	case err != nil:
		// The move before it is saved, and answered as saved: the next
		// Open finds the game over and ends it, as after a server stop
		// between the two writes.
		p.seat.svc.log.Error("game end not saved; the game is ended when next opened", "game", p.id, "player", p.key.player, "err", err)
		return nil
	}
	p.ended = true
	p.seat.svc.log.Info("game end", "game", p.id, "player", p.key.player,
		"size", p.key.size, "kind", p.key.kind, "score", ms.Score, "moves", ms.Moves)
	return nil
}

// isHidden reports whether an admin took the game off the boards.
func (p *Play) isHidden() bool { return p.hidden.Load() }

// Snapshot returns the game as a spectator sees it.
func (p *Play) Snapshot() Snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	var snap Snapshot
	p.fill(&snap)
	return snap
}

// fill sets what snap shows of the game; p.mu is held.
func (p *Play) fill(snap *Snapshot) {
	snap.GameID, snap.Player, snap.Size, snap.Kind = p.id, p.seat.player.Name, p.key.size, p.key.kind
	snap.PlayerID, snap.Key = p.seat.player.ID, store.ShortID(p.seat.player.Fingerprint)
	snap.Board, snap.Score, snap.Moves = p.game.Board(), p.game.Score(), p.game.Moves()
	snap.Won, snap.Over = p.game.Won(), p.game.Over()
	snap.Status = Live
	if p.ended {
		snap.Status = Ended
	}
}

// watched returns the game's feed, starting it with the game as it stands
// if no one watched before, and lists it with the service.
func (p *Play) watched() *feed {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.feed == nil {
		var snap Snapshot
		p.fill(&snap)
		p.feed = latest.New(snap)
	}
	s := p.seat.svc
	s.mu.Lock()
	s.feeds[p.id] = p.feed
	s.mu.Unlock()
	return p.feed
}

// MarkAssisted records that the AI hinted or played: a human game becomes
// an assisted one (sqlite.Store.MarkAssisted) and from then on ranks on the
// assisted leaderboard. Other kinds, and guests' games, are left as they
// are. The one-writer rule follows the game to its new kind: a session
// holding the player's assisted game of that size is taken over, as the
// store ends that game.
func (p *Play) MarkAssisted(ctx context.Context) error {
	if p.guest {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.revoked:
		return ErrTakenOver
	case p.failed != nil:
		return p.failed
	case p.key.kind != store.KindHuman || p.key.contest != "":
		return nil // contests are played without the AI: the screen hides it
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if err := p.seat.svc.store.MarkAssisted(ctx, p.id); err != nil {
		p.failed = fmt.Errorf("mark game %d assisted: %w", p.id, err)
		return p.failed
	}
	// Assisted once the store has it so: a game whose mark failed is
	// still the human game the store holds.
	p.seat.svc.rekey(p, store.KindAssisted)
	return nil
}

// Watchers returns how many spectators watch the game right now.
func (p *Play) Watchers() int {
	p.mu.Lock()
	f := p.feed
	p.mu.Unlock()
	if f == nil {
		return 0
	}
	snap, _ := f.Get()
	return snap.Watchers
}

// Contest names the contest the game belongs to: "" for free play,
// "daily:YYYY-MM-DD" or "race:ID".
func (p *Play) Contest() string { return p.key.contest }
