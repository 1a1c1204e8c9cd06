// Package game is the game service: every game a player opens, every move
// they make and every end of a game passes through it, whichever way they
// came in (an SSH game screen, the bot protocol, `ssh2048 play` in a local
// terminal). Spectators and other stores plug in here too; races are
// built on it (package race), through the seam of contest.go.
//
// The story of a move:
//
//  1. A session gets a Seat for its player (Service.Seat) and opens a game
//     there (Seat.Open or Seat.Resume). Opening claims the game: a player
//     has at most one game in progress per size and kind, and one session
//     holds it. A session that opens a game another session holds takes
//     it over; the old holder's Seat is told (its onTakenOver) and its
//     moves fail with ErrTakenOver from then on.
//  2. Play.Move applies the move to the engine's game in memory and, if
//     the board changed, commits it to the Store. It returns only once
//     the move is durable, so whatever the caller shows after it (a
//     frame, a bot state line) is already stored.
//  3. A move that ends the game also records the end. A game found over
//     but not ended (the server stopped between the two writes) is ended
//     when it is next opened.
//  4. When the session ends, Seat.Close gives up its games; they stay in
//     the store, ready to resume.
//
// The store is the backstop of the one-writer rule: it refuses a move
// whose sequence number is stale (store.ErrConflict) or whose fencing token
// is (store.ErrFenced: another node or process claimed the game), which Play
// reports as a takeover, so even two processes on one store never apply
// a move twice (nodes.go).
// Guests play the same way with nothing stored.
package game

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/store"
)

// Errors the service returns; callers branch on them with errors.Is.
var (
	// ErrTakenOver: a newer session of the same player opened this game;
	// this session's moves are refused from now on.
	ErrTakenOver = errors.New("game taken over by a newer session")
	// ErrMovedAccount: the session's key joined another account (a merge)
	// and the game, now that account's, was ended for the account's own
	// game of its size; the session's moves fail from then on, as after
	// ErrTakenOver. (A server ends the sessions of an account merged
	// away once it hears of the merge, store.MergeWatcher: this and
	// ErrAccountGone are met by a move or an open before that, or on a
	// node whose bus was down at the merge, until it listens again.)
	ErrMovedAccount = errors.New("the game's key joined another account")
	// ErrAccountGone: the session's account is no more, its key having
	// joined another account (a merge) since the session began as it; a
	// game cannot be opened for it. A new session plays as the account
	// the key is on now.
	ErrAccountGone = errors.New("this key joined another account; reconnect")
	// ErrOver: the game is over; no move can be played.
	ErrOver = errors.New("game is over")
	// ErrShuttingDown: the service is closed to new games (the server is
	// restarting).
	ErrShuttingDown = errors.New("server is restarting")
)

// writeTimeout bounds one write to the store. Writes are not cancelled
// when the player goes away: a move that reached the store is finished
// either way.
const writeTimeout = 5 * time.Second

// Player is who a session plays as.
type Player struct {
	ID          int64  // the store's id; 0 for a guest
	Name        string // sanitized display name, safe to print anywhere
	Fingerprint string // SHA256 fingerprint of the key, "" for a guest
	Guest       bool   // no key: nothing is recorded
}

// Guest is a player without a key, who plays but is not recorded.
var Guest = Player{Guest: true, Name: "guest"}

// Service is the game service over one store. Its methods are safe for
// concurrent use.
type Service struct {
	store  store.Store
	log    *slog.Logger
	now    func() time.Time
	bus    Bus // nil on a single node
	outbox chan remoteSnapshot

	// Lock order: a race's mu (package race), then a Play's mu, then
	// mu, then a latest.Value's mu.
	mu      sync.Mutex
	holders map[gameKey]*Play // the one writer of each game in progress
	byID    map[int64]*Play   // the same, by game id
	feeds   map[int64]*feed   // the games being watched, by game id
	closed  bool
	// hiddenAsked is when Live last asked the store which games held here
	// are hidden (refreshHidden).
	hiddenAsked time.Time
	// watchedElsewhere: games held here that other nodes' spectators
	// asked for, until when (remote.go).
	watchedElsewhere map[int64]time.Time

	reviewer review.Evaluator // nil: no reviews made (review.go)
	reviews  reviews
	replays  liveReplays // the replays held now, shared (replays.go)
}

// Option changes how New builds the service.
type Option func(*Service)

// WithClock sets the clock that says which day's challenge is on and when
// a race's time is up; the default is time.Now.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// New returns the service over st; log nil means slog.Default().
func New(st store.Store, log *slog.Logger, opts ...Option) *Service {
	if log == nil {
		log = slog.Default()
	}
	s := &Service{store: st, log: log, now: time.Now, holders: make(map[gameKey]*Play),
		byID: make(map[int64]*Play), feeds: make(map[int64]*feed),
		reviews: reviews{byGame: make(map[int64]*reviewFlight), byPlayer: make(map[int64]bool), byNetwork: make(map[netip.Prefix]int)}}
	for _, o := range opts {
		o(s)
	}
	s.listen()
	return s
}

// Close closes the service to new games: Open fails with ErrShuttingDown
// from now on. Games already open play on until their sessions close them.
func (s *Service) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// Identify returns the player behind a public key, recording the key and
// the display name it asked for (sanitized by the store).
func (s *Service) Identify(ctx context.Context, fingerprint, keyType, name string) (Player, error) {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	p, err := s.store.UpsertPlayer(ctx, fingerprint, keyType, name)
	if err != nil {
		return Player{}, fmt.Errorf("identify %s: %w", fingerprint, err)
	}
	// The name as store.DisplayName shows it, as every name the service
	// gives: a session's name is drawn on others' screens (races, watch,
	// TV) and kept in the audit log as an admin's, and a name stored by an
	// older version, a merge, a peer or an operator's SQL may hold escapes
	// that the name command would refuse.
	return Player{ID: p.ID, Name: store.DisplayName(p.Name, p.Fingerprint), Fingerprint: p.Fingerprint}, nil
}

// Leaderboard lists the best game of each player for a size and kind,
// best first, at most limit of them. Names are as store.DisplayName shows
// them (cleaned again: a name stored by an older version may hold what is
// now removed).
func (s *Service) Leaderboard(ctx context.Context, size int, kind store.Kind, limit int) ([]store.Entry, error) {
	rows, err := s.store.Leaderboard(ctx, size, kind, limit)
	for i := range rows {
		rows[i].Name = store.DisplayName(rows[i].Name, rows[i].Fingerprint)
	}
	return rows, err
}

// MaxUnpagedOffset bounds the offset of LeaderboardFrom on a store that
// reads no pages: it reads the ranks skipped too.
const MaxUnpagedOffset = 10_000

// LeaderboardFrom is Leaderboard from rank offset+1 on. On a store that
// reads no pages, the ranks before are read and dropped, and an offset
// over MaxUnpagedOffset is an error.
func (s *Service) LeaderboardFrom(ctx context.Context, size int, kind store.Kind, offset, limit int) ([]store.Entry, error) {
	var rows []store.Entry
	var err error
	switch ps, ok := s.store.(store.PagedBoarder); {
	case offset == 0:
		return s.Leaderboard(ctx, size, kind, limit)
	case ok:
		rows, err = ps.LeaderboardFrom(ctx, size, kind, offset, limit)
	case offset > MaxUnpagedOffset:
		return nil, fmt.Errorf("leaderboard from rank %d: this store lists the first %d ranks at most", offset+1, MaxUnpagedOffset+limit)
	default:
		rows, err = s.store.Leaderboard(ctx, size, kind, offset+limit)
		rows = rows[min(offset, len(rows)):]
	}
	for i := range rows {
		rows[i].Name = store.DisplayName(rows[i].Name, rows[i].Fingerprint)
	}
	return rows, err
}

// Rank returns the player's best game of a size and kind with its rank,
// or store.ErrNotFound when they have none (guests never do).
func (s *Service) Rank(ctx context.Context, p Player, size int, kind store.Kind) (store.Entry, error) {
	if p.Guest {
		return store.Entry{}, store.ErrNotFound
	}
	e, err := s.store.PlayerRank(ctx, p.ID, size, kind)
	if err == nil {
		e.Name = store.DisplayName(e.Name, e.Fingerprint)
	}
	return e, err
}

// gameKey names the one game a player may have in progress per size and
// kind.
type gameKey struct {
	player  int64
	size    int
	kind    store.Kind
	contest string // '' for free play
}

// open reports ErrShuttingDown once the service is closed.
func (s *Service) open() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrShuttingDown
	}
	return nil
}

// claim makes p the holder of its key and revokes the previous holder. It
// returns after that holder's in-flight commit, if any, has finished, so a
// game loaded afterwards contains every move the old session committed.
func (s *Service) claim(p *Play) {
	s.mu.Lock()
	old := s.holders[p.key]
	s.holders[p.key] = p
	s.mu.Unlock()
	if old != nil {
		old.revoke(old.seat != p.seat)
	}
}

// shown reports whether a session here holds the player's free game of
// that size, of the kinds a game screen plays.
func (s *Service) shown(player int64, size int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, kind := range []store.Kind{store.KindHuman, store.KindAssisted} {
		if s.holders[gameKey{player: player, size: size, kind: kind}] != nil {
			return true
		}
	}
	return false
}

// loaded records that p, the holder of its key, has loaded game p.id. If
// the game is being watched (it was taken over, or its player left and
// came back), p feeds the spectators from now on. p.mu is held.
func (s *Service) loaded(p *Play) {
	s.mu.Lock()
	if s.holders[p.key] != p { // taken over already, while loading
		s.mu.Unlock()
		return
	}
	s.byID[p.id] = p
	f := s.feeds[p.id]
	s.mu.Unlock()
	if f != nil {
		p.feed = f
		f.Update(func(snap *Snapshot) {
			if snap.Status == Live {
				snap.TakenOver++
			}
			p.fill(snap)
		})
	}
}

// release forgets p if it still holds its key; spectators of its game are
// told that the player left.
func (s *Service) release(p *Play) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holders[p.key] == p {
		delete(s.holders, p.key)
	}
	if p.id != 0 && s.byID[p.id] == p {
		delete(s.byID, p.id)
		if f := s.feeds[p.id]; f != nil {
			f.Update(func(snap *Snapshot) {
				if snap.Status == Live {
					snap.Status = Left
				}
			})
		}
	}
}

// rekey moves p to the same game key with another kind, revoking that
// key's holder.
func (s *Service) rekey(p *Play, kind store.Kind) {
	s.mu.Lock()
	if s.holders[p.key] == p {
		delete(s.holders, p.key)
	}
	p.key.kind = kind
	old := s.holders[p.key]
	s.holders[p.key] = p
	s.mu.Unlock()
	if old != nil && old != p {
		old.revoke(old.seat != p.seat)
	}
}
