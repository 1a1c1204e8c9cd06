package server

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/ssh2048/ssh2048/db"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/tui"
)

// Errors a Play's moves return; callers branch on them with errors.Is.
var (
	// ErrTakenOver: a newer session of the same player opened this game.
	// It is the game screen's own sentinel, which it branches on.
	ErrTakenOver = tui.ErrTakenOver
	// ErrGameEnded: the game is over; no move can be played.
	ErrGameEnded = errors.New("game has ended")
	// ErrShuttingDown: the server is restarting and accepts no new games.
	ErrShuttingDown = errors.New("server is restarting")
)

// writeTimeout bounds one commit. Commits are not cancelled when the client
// goes away: a move that reached the store is finished either way.
const writeTimeout = 5 * time.Second

// Player is who a session plays as.
type Player struct {
	ID          int64  // db id; 0 for a guest
	Name        string // sanitized display name, safe to print anywhere
	Fingerprint string // SHA256 fingerprint of the key, "" for a guest
	Guest       bool   // keyboard-interactive without a key: nothing is recorded
}

// gameKey names the one game a player may have in progress per size and kind.
type gameKey struct {
	player int64
	size   int
	kind   db.Kind
}

// registry enforces one writer per game: the session that opened a game
// last holds it, and opening revokes the previous holder first.
type registry struct {
	mu      sync.Mutex
	holders map[gameKey]*Play
}

// claim makes p the holder of its key and revokes the previous holder. It
// returns after that holder's in-flight commit, if any, has finished, so a
// game loaded afterwards contains every move the old session committed.
func (r *registry) claim(p *Play) {
	r.mu.Lock()
	if r.holders == nil {
		r.holders = make(map[gameKey]*Play)
	}
	old := r.holders[p.key]
	r.holders[p.key] = p
	r.mu.Unlock()
	if old != nil {
		old.revoke(old.games != p.games)
	}
}

// release forgets p if it still holds its key.
func (r *registry) release(p *Play) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.holders[p.key] == p {
		delete(r.holders, p.key)
	}
}

// rekey moves p to the same game key with another kind, revoking that
// key's holder.
func (r *registry) rekey(p *Play, kind db.Kind) {
	r.mu.Lock()
	if r.holders[p.key] == p {
		delete(r.holders, p.key)
	}
	p.key.kind = kind
	old := r.holders[p.key]
	r.holders[p.key] = p
	r.mu.Unlock()
	if old != nil && old != p {
		old.revoke(old.games != p.games)
	}
}

// Games opens games for one session. The TUI gets one (see TUIEnv).
type Games struct {
	srv    *Server
	player Player
	// takenOver is called, once, when a newer session takes over a game
	// this session holds; it tells the player and ends the session.
	takenOver func()

	mu    sync.Mutex
	plays []*Play // opened and not closed; closeAll releases them
}

// closeAll closes every Play the session left open, when it ends.
func (gs *Games) closeAll() {
	gs.mu.Lock()
	plays := gs.plays
	gs.plays = nil
	gs.mu.Unlock()
	for _, p := range plays {
		p.Close()
	}
}

// Play is one open game. Its methods are safe for concurrent use; moves are
// committed one at a time, in order.
type Play struct {
	games *Games
	key   gameKey // changes (rekey) only with both mu and the registry's lock held
	guest bool

	mu      sync.Mutex
	id      int64 // db game id; 0 for a guest
	game    *engine.Game
	revoked bool // a newer session holds the game
	failed  error
	ended   bool
}

// Open opens the player's unfinished game of that size and kind, or a new
// one when fresh is set or there is none. A guest's game lives in memory.
func (gs *Games) Open(ctx context.Context, size int, kind db.Kind, fresh bool) (*Play, error) {
	if size < engine.MinSize || size > engine.MaxSize {
		return nil, fmt.Errorf("size %d: must be %d to %d", size, engine.MinSize, engine.MaxSize)
	}
	if gs.srv.closing() {
		return nil, ErrShuttingDown
	}
	p := &Play{games: gs, key: gameKey{gs.player.ID, size, kind}, guest: gs.player.Guest}
	if p.guest {
		g, err := engine.NewGame(size, rand.Uint64())
		if err != nil {
			return nil, err
		}
		p.game = g
		return p, nil
	}
	// Hold our own lock while claiming and loading, so that a session
	// claiming after us waits until our load is done before revoking us.
	p.mu.Lock()
	defer p.mu.Unlock()
	gs.srv.games.claim(p)
	g, err := p.load(ctx, fresh)
	if err != nil {
		gs.srv.games.release(p)
		return nil, err
	}
	p.id, p.game = g.ID, g.Engine
	gs.mu.Lock()
	gs.plays = append(gs.plays, p)
	gs.mu.Unlock()
	return p, nil
}

// load fetches the game from the store. A game that is over but was never
// marked ended (the server stopped between the two writes) is ended now and
// a new one started.
func (p *Play) load(ctx context.Context, fresh bool) (*db.SavedGame, error) {
	store := p.games.srv.store
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if fresh {
		return store.NewGame(ctx, p.key.player, p.key.size, p.key.kind)
	}
	g, err := store.LoadOrCreateGame(ctx, p.key.player, p.key.size, p.key.kind)
	if err != nil || !g.Engine.Over() {
		return g, err
	}
	if err := store.EndGame(ctx, g.ID, db.StateOf(g.Engine)); err != nil {
		return nil, err
	}
	return store.NewGame(ctx, p.key.player, p.key.size, p.key.kind)
}

// revoke stops p from committing further moves and, if tell is set, tells
// its session. A session reopening a game it holds (a new game, say)
// supersedes its own Play without being told anything.
func (p *Play) revoke(tell bool) {
	p.mu.Lock()
	already := p.revoked
	p.revoked = true
	p.mu.Unlock()
	if tell && !already && p.games.takenOver != nil {
		p.games.takenOver()
	}
}

// Close gives up the game; it stays in the store, ready to resume. Plays
// still open when their session ends are closed then.
func (p *Play) Close() {
	if p.guest {
		return
	}
	p.games.srv.games.release(p)
	gs := p.games
	gs.mu.Lock()
	defer gs.mu.Unlock()
	gs.plays = slices.DeleteFunc(gs.plays, func(q *Play) bool { return q == p })
}

// ID returns the game's id in the store, 0 for a guest's game.
func (p *Play) ID() int64 { return p.id }

// State returns the game's state, describing no last command.
func (p *Play) State() State {
	p.mu.Lock()
	defer p.mu.Unlock()
	return stateOf(p.game, engine.Result{})
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

// Move plays d and returns once the move is durable. A move that changes
// nothing is not stored. When the move ends the game, the game is marked
// ended too. Errors: ErrTakenOver (a newer session has the game; the
// session is being told to end), ErrGameEnded, or a storage error, after
// which the game in memory may be ahead of the store, so the Play refuses
// further moves; the session should end and the player resume from what
// was stored.
func (p *Play) Move(ctx context.Context, d engine.Direction) (engine.Result, error) {
	res, st, err := p.move(ctx, d)
	if err == nil && st.Over {
		err = p.end(ctx)
	}
	return res, err
}

// move is Move without recording the end of the game (see end), also
// returning the bot protocol's state line, taken under the same lock as
// the move. The bot answers the last move after one commit, not two.
func (p *Play) move(ctx context.Context, d engine.Direction) (engine.Result, State, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.revoked:
		return engine.Result{}, State{}, ErrTakenOver
	case p.failed != nil:
		return engine.Result{}, State{}, p.failed
	case p.ended:
		return engine.Result{}, State{}, ErrGameEnded
	}
	res := p.game.Move(d)
	st := stateOf(p.game, res)
	if !res.Moved || p.guest {
		p.ended = p.guest && st.Over
		return res, st, nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	store := p.games.srv.store
	ms := db.StateOf(p.game)
	if err := store.AppendMove(ctx, p.id, p.game.Moves()-1, d, ms); err != nil {
		if errors.Is(err, db.ErrConflict) || errors.Is(err, db.ErrGameEnded) {
			// Another session moved or restarted this game after we
			// loaded it: the registry should have prevented that, and
			// the store refused the write, so nothing was applied twice.
			p.revoked = true
			if p.games.takenOver != nil {
				p.games.takenOver()
			}
			return engine.Result{}, State{}, ErrTakenOver
		}
		p.failed = fmt.Errorf("save move %d of game %d: %w", p.game.Moves()-1, p.id, err)
		return engine.Result{}, State{}, p.failed
	}
	return res, st, nil
}

// end records that the game is over, after the move that ended it is
// stored. Should the server stop in between, the next Open finds the game
// over and ends it then.
func (p *Play) end(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended || p.guest || p.revoked || p.failed != nil || !p.game.Over() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	ms := db.StateOf(p.game)
	if err := p.games.srv.store.EndGame(ctx, p.id, ms); err != nil {
		p.failed = fmt.Errorf("end game %d: %w", p.id, err)
		return p.failed
	}
	p.ended = true
	p.games.srv.log.Info("game end", "game", p.id, "player", p.key.player,
		"size", p.key.size, "kind", p.key.kind, "score", ms.Score, "moves", ms.Moves)
	return nil
}

// MarkAssisted records that the AI hinted or played: a human game becomes
// an assisted one (db.Store.MarkAssisted) and from then on ranks on the
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
	reg := &p.games.srv.games
	switch {
	case p.revoked:
		return ErrTakenOver
	case p.failed != nil:
		return p.failed
	case p.key.kind != db.KindHuman:
		return nil
	}
	reg.rekey(p, db.KindAssisted)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if err := p.games.srv.store.MarkAssisted(ctx, p.id); err != nil {
		p.failed = fmt.Errorf("mark game %d assisted: %w", p.id, err)
		return p.failed
	}
	return nil
}
