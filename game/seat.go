package game

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

// Seat is one session's place at the service: it opens that player's
// games and holds them until the session ends.
type Seat struct {
	svc    *Service
	player Player
	// takenOver is called, once per game, when a newer session takes over
	// a game this seat holds (ErrTakenOver), or the game left the seat's
	// account with its key (ErrMovedAccount), and when a game cannot be
	// opened as the seat's account is gone (ErrAccountGone); it tells the
	// player and ends the session.
	takenOver func(why error)
	// onWatchers, if set, is called when a spectator starts or stops
	// watching one of the seat's games (see OnWatchers).
	onWatchers atomic.Pointer[func()]

	mu     sync.Mutex
	plays  []*Play           // opened and not closed; Close releases them
	guests map[gameKey]*Play // a guest's games of this session
	// lastGames is the list of games LastSize read, left for the Resume
	// that follows it as a session opens: one query at a login, not two.
	// The first Resume uses it, and Open (which Resume calls) drops it.
	lastGames []store.GameSummary

	// shownMu guards shown: what waits for the player's next frame to be
	// written before it is shown to others (see Shown).
	shownMu sync.Mutex
	shown   []Flusher
}

// Flusher is what waits to be shown with the player's next frame: a
// watched game's feed, or a race's view (package race), made with
// latest.Value.UpdateBeforeFlush.
type Flusher interface{ Flush(after time.Duration) }

// ToShow has f's waiting change shown at the seat's next Shown: the
// change a move of this seat's player made, which those who watch it
// should see once the player's own frame of it is written.
func (st *Seat) ToShow(f Flusher) {
	st.shownMu.Lock()
	defer st.shownMu.Unlock()
	if !slices.Contains(st.shown, f) {
		st.shown = append(st.shown, f)
	}
}

// shownLag is how long after the player's frame is written those who
// watch the move are woken: time for the frame to leave and, where the
// player's client shares the machine (a load test on loopback), to be
// read, before hundreds of spectators' frames want the CPU.
const shownLag = 2 * time.Millisecond

// Shown tells the seat that the player's screen has just written the
// frame of their last move: the spectators of the game (and the
// opponents of a race) are woken shownLag later to show it, rather than
// after a fixed delay from the move (SpectatorLag, which stays the
// bound when no frame is written). Their hundreds of frames take the
// CPU after the player's, not before it nor at once with it. It is
// quick and takes no lock a move holds: it may be called while the
// player's screen is locked.
func (st *Seat) Shown() {
	var buf [2]Flusher
	st.shownMu.Lock()
	fs := append(buf[:0], st.shown...)
	clear(st.shown)
	st.shown = st.shown[:0]
	st.shownMu.Unlock()
	for _, f := range fs {
		f.Flush(shownLag)
	}
}

// Seat returns a seat for a session of player p. onTakenOver, if not nil,
// is called when another session takes over a game the seat holds, or a
// merge moved it to another account, or deleted the seat's account
// before a game was opened (why: ErrTakenOver, ErrMovedAccount,
// ErrAccountGone; from whichever goroutine met it: it must not block).
func (s *Service) Seat(p Player, onTakenOver func(why error)) *Seat {
	return &Seat{svc: s, player: p, takenOver: onTakenOver}
}

// OnWatchers sets f to be called whenever a spectator starts or stops
// watching a game the seat holds, so that the player's screen can show how
// many watch. f is called from the spectator's goroutine: it must not
// block (a spectator must never wait on the player, nor the player on a
// spectator).
func (st *Seat) OnWatchers(f func()) { st.onWatchers.Store(&f) }

func (st *Seat) watchersChanged() {
	if f := st.onWatchers.Load(); f != nil {
		(*f)()
	}
}

// Player returns whom the seat plays for.
func (st *Seat) Player() Player { return st.player }

// Open opens the player's unfinished game of that size and kind, or a new
// one when fresh is set or there is none. A guest's game lives in memory.
func (st *Seat) Open(ctx context.Context, size int, kind store.Kind, fresh bool) (*Play, error) {
	st.mu.Lock()
	st.lastGames = nil
	st.mu.Unlock()
	if size < engine.MinSize || size > engine.MaxSize {
		return nil, fmt.Errorf("size %d: must be %d to %d", size, engine.MinSize, engine.MaxSize)
	}
	if err := st.svc.open(); err != nil {
		return nil, err
	}
	if st.player.Guest {
		return st.openGuest(gameKey{size: size, kind: kind}, store.NewSeed(), fresh)
	}
	return st.open(ctx, gameKey{st.player.ID, size, kind, ""}, func(p *Play) (*store.SavedGame, error) {
		return p.load(ctx, fresh)
	})
}

// gone reports whether err, of opening a game, is the seat's account
// being gone: a merge deleted it since the session logged in as it
// (docs/accounts.md). The player is asked for only then.
func (st *Seat) gone(ctx context.Context, err error) bool {
	if !errors.Is(err, store.ErrNotFound) {
		return false
	}
	_, err = st.svc.store.PlayerByID(ctx, st.player.ID)
	return errors.Is(err, store.ErrNotFound)
}

// open claims the game of key for the seat and loads it with load.
func (st *Seat) open(ctx context.Context, key gameKey, load func(*Play) (*store.SavedGame, error)) (*Play, error) {
	p := &Play{seat: st, key: key}
	// Hold our own lock while claiming and loading, so that a session
	// claiming after us waits until our load is done before revoking us.
	p.mu.Lock()
	defer p.mu.Unlock()
	st.svc.claim(p)
	g, err := load(p)
	if err != nil {
		st.svc.release(p)
		if st.gone(ctx, err) {
			// Whichever open met it (a screen's, a race's start), the
			// session ends as one whose account was merged away.
			if st.takenOver != nil {
				st.takenOver(ErrAccountGone)
			}
			return nil, ErrAccountGone
		}
		return nil, fmt.Errorf("open %d×%d %s game %q of player %d: %w", key.size, key.size, key.kind, key.contest, st.player.ID, err)
	}
	p.id, p.game, p.fence = g.ID, g.Engine, g.Fence
	p.hidden.Store(g.Hidden)
	st.svc.loaded(p)
	st.mu.Lock()
	st.plays = append(st.plays, p)
	st.mu.Unlock()
	return p, nil
}

// openGuest returns the guest's game of that size and contest from this
// session, or a new one on seed: a guest's games live as long as the
// session.
func (st *Seat) openGuest(key gameKey, seed uint64, fresh bool) (*Play, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if p := st.guests[key]; p != nil && !fresh {
		return p, nil
	}
	g, err := engine.Current.NewGame(key.size, seed)
	if err != nil {
		return nil, err
	}
	p := &Play{seat: st, key: key, guest: true, game: g}
	if st.guests == nil {
		st.guests = make(map[gameKey]*Play)
	}
	st.guests[key] = p
	return p, nil
}

// Resume opens the player's game of that size as a game screen does: the
// newest unfinished one, human or, once the AI has helped, assisted. A
// fresh game is human until the AI helps.
func (st *Seat) Resume(ctx context.Context, size int, fresh bool) (*Play, error) {
	kind := store.KindHuman
	if !fresh && !st.player.Guest {
		kind = st.resumeKind(ctx, size)
	}
	return st.Open(ctx, size, kind, fresh)
}

func (st *Seat) resumeKind(ctx context.Context, size int) store.Kind {
	st.mu.Lock()
	games := st.lastGames
	st.mu.Unlock()
	if games == nil {
		var err error
		if games, err = st.playerGames(ctx); err != nil {
			return store.KindHuman
		}
	}
	for _, g := range games { // newest first
		if g.Size == size && g.EndedAt == nil && g.Contest == "" && (g.Kind == store.KindHuman || g.Kind == store.KindAssisted) {
			return g.Kind
		}
	}
	return store.KindHuman
}

// LastSize is the board size a new game screen of the player opens: that
// of their game played last, of the kinds a game screen plays (human or
// assisted), where opening a game to play it counts as playing it (the
// store touches it), so a size switched to is remembered with no move
// made on it. When a live session of the player on this service shows
// that size already, it is the size played last that none shows, else a
// size none shows, so that a second window never takes over a first; only
// when every size is shown is the first taken over. 0 when the player has
// no such game, and for a guest.
func (st *Seat) LastSize(ctx context.Context) int {
	if st.player.Guest {
		return 0
	}
	games, err := st.playerGames(ctx)
	if err != nil {
		return 0
	}
	st.mu.Lock()
	st.lastGames = games
	st.mu.Unlock()
	var played []store.GameSummary
	for _, g := range games {
		if g.Contest == "" && (g.Kind == store.KindHuman || g.Kind == store.KindAssisted) {
			played = append(played, g)
		}
	}
	if len(played) == 0 {
		return 0
	}
	slices.SortStableFunc(played, func(a, b store.GameSummary) int { return b.UpdatedAt.Compare(a.UpdatedAt) })
	sizes := make([]int, 0, len(played)+1+engine.MaxSize-engine.MinSize)
	for _, g := range played {
		sizes = append(sizes, g.Size)
	}
	sizes = append(sizes, 4)
	for n := engine.MinSize; n <= engine.MaxSize; n++ {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		if !st.svc.shown(st.player.ID, n) {
			return n
		}
	}
	return sizes[0]
}

// playerGames is the player's newest games, which LastSize and Resume
// choose from; a failure is logged.
func (st *Seat) playerGames(ctx context.Context) ([]store.GameSummary, error) {
	games, err := st.svc.store.PlayerGames(ctx, st.player.ID, 100)
	if err != nil {
		st.svc.log.Warn("list games", "player", st.player.ID, "err", err)
		return nil, err
	}
	if games == nil {
		games = []store.GameSummary{} // read: not nil, which means unread
	}
	return games, nil
}

// Close gives up every game the seat still holds, when its session ends.
func (st *Seat) Close() {
	st.mu.Lock()
	plays := st.plays
	st.plays = nil
	st.mu.Unlock()
	for _, p := range plays {
		p.Close()
	}
}

// forget drops p from the seat's open games.
func (st *Seat) forget(p *Play) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.plays = slices.DeleteFunc(st.plays, func(q *Play) bool { return q == p })
}
