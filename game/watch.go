package game

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/ssh2048/ssh2048/db"
	"github.com/ssh2048/ssh2048/engine"
)

// Errors of watching; callers branch on them with errors.Is.
var (
	// ErrNotLive: no one is playing that game (or that player has no game
	// in progress) on this server right now.
	ErrNotLive = errors.New("not being played right now")
	// ErrNotWatchable: guests' games are not watched.
	ErrNotWatchable = errors.New("guest games cannot be watched")
)

// Status says where a watched game stands.
type Status uint8

const (
	// Live: a session holds the game and its moves show as they are made.
	Live Status = iota
	// Left: the player left; the game waits for them to come back, and the
	// spectator keeps the last board.
	Left
	// Ended: no move can be played any more.
	Ended
)

// Snapshot is a live game as a spectator sees it: what the player's own
// screen shows of it. It carries no seed: a game's seed never leaves the
// server while the game can still be played.
type Snapshot struct {
	GameID   int64
	PlayerID int64
	Player   string // display name
	Key      string // the player's short id (db.ShortID); "" for a guest
	Size     int
	Kind     db.Kind
	Board    engine.Board
	Score    int
	Moves    int
	Won      bool
	Over     bool
	Last     engine.Result // the last move's result: the new tile and the points
	Status   Status
	Watchers int // spectators watching, this one included
	// Version counts the snapshots of this game; a spectator's next one
	// has a higher Version, possibly by more than one (a slow spectator
	// skips to the latest board, it never queues them).
	Version uint64
	// TakenOver counts the times another session of the player took the
	// game over; the game goes on there and the spectator with it.
	TakenOver int
}

// feed is a watched game's newest snapshot.
type feed = latest[Snapshot]

// spectatorLag is how long after its player's move the spectators of a
// game are woken to show it: time for the player's own frame to be drawn
// and sent first (a millisecond or two), before hundreds of spectators'
// frames want the CPU. Well under a frame interval a person notices.
const spectatorLag = 10 * time.Millisecond

// watchersLag is how long a change in the number of spectators waits to
// be shown to them, with every other change in that time: when hundreds
// arrive at once, each of them redraws once or twice, not once for every
// other.
const watchersLag = 500 * time.Millisecond

// Watch is one spectator of one game. Next is called from one goroutine.
type Watch struct {
	svc  *Service
	feed *feed
	seen uint64
	once sync.Once
}

// Next returns the game's newest snapshot: at once the first time, then
// once there is a newer one than the last returned, or ctx's error.
func (w *Watch) Next(ctx context.Context) (Snapshot, error) {
	snap, version, err := w.feed.next(ctx, w.seen)
	if err != nil {
		return Snapshot{}, err
	}
	w.seen = version
	snap.Version = version
	return snap, nil
}

// Close stops watching.
func (w *Watch) Close() {
	w.once.Do(func() {
		var id int64
		w.feed.updateSoon(func(snap *Snapshot) { snap.Watchers--; id = snap.GameID }, watchersLag)
		w.svc.dropFeedIfIdle(w.feed)
		w.svc.mu.Lock()
		p := w.svc.byID[id]
		w.svc.mu.Unlock()
		if p != nil {
			p.seat.watchersChanged()
		}
	})
}

// Watch starts watching game id, which must be in play on this server
// (on any of its nodes, when they share a store and a Bus).
func (s *Service) Watch(id int64) (*Watch, error) {
	s.mu.Lock()
	p := s.byID[id]
	s.mu.Unlock()
	if p == nil {
		return s.watchElsewhere(id)
	}
	f := p.watched()
	f.updateSoon(func(snap *Snapshot) { snap.Watchers++ }, watchersLag)
	p.seat.watchersChanged()
	return &Watch{svc: s, feed: f}, nil
}

// WatchPlayer starts watching the game in play of a player named by their
// display name (as shown, case included) or, when names look alike, by
// their short id or its tag ("#" and at least 6 of its characters, as the
// boards show it): the game with the most moves if they play several at
// once.
func (s *Service) WatchPlayer(who string) (*Watch, error) {
	p := s.playerPlay(who)
	if p == nil {
		return s.watchPlayerElsewhere(who)
	}
	return s.Watch(p.id)
}

// Playing returns the game WatchPlayer(who) would watch, as it stands,
// without watching it: for a spectator who follows a player from one game
// to the next, and checks whether they started another.
func (s *Service) Playing(who string) (Snapshot, bool) {
	p := s.playerPlay(who)
	if p == nil {
		return Snapshot{}, false
	}
	return p.snapshot(), true
}

// playerPlay is the game in play of the player who names (see
// WatchPlayer), or nil.
func (s *Service) playerPlay(who string) *Play {
	id, byID := strings.CutPrefix(who, "#")
	byID = byID && len(id) >= 6
	var best *Play
	for _, p := range s.plays() {
		pl := p.seat.player
		match := pl.Name == who || (byID && strings.HasPrefix(db.ShortID(pl.Fingerprint), id))
		if match && (best == nil || p.Moves() > best.Moves()) {
			best = p
		}
	}
	return best
}

// watchPlayerElsewhere is WatchPlayer for a player whose games are held
// on other nodes.
func (s *Service) watchPlayerElsewhere(who string) (*Watch, error) {
	id, byID := strings.CutPrefix(who, "#")
	byID = byID && len(id) >= 6
	var best *db.LiveGame
	for _, g := range s.liveElsewhere(0) {
		match := printable(db.DisplayName(g.Player, g.Fingerprint)) == who || (byID && strings.HasPrefix(db.ShortID(g.Fingerprint), id))
		if match && (best == nil || g.Moves > best.Moves) {
			best = &g
		}
	}
	if best == nil {
		return nil, ErrNotLive
	}
	return s.Watch(best.GameID)
}

// Live returns a snapshot of every game in play on this server (on every
// node, when they share a store and a Bus), of every size when size is 0;
// guests' games are not listed.
func (s *Service) Live(size int) []Snapshot {
	var out []Snapshot
	for _, p := range s.plays() {
		if size == 0 || p.key.size == size {
			out = append(out, p.snapshot())
		}
	}
	for _, g := range s.liveElsewhere(size) {
		out = append(out, liveSnapshot(g))
	}
	return out
}

// plays returns the games held right now.
func (s *Service) plays() []*Play {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Play, 0, len(s.byID))
	for _, p := range s.byID {
		out = append(out, p)
	}
	return out
}

// dropFeedIfIdle forgets f once no one watches it. The Play that feeds it
// keeps it (a new spectator gets it back from the Play).
func (s *Service) dropFeedIfIdle(f *feed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if snap, _ := f.get(); snap.Watchers == 0 && s.feeds[snap.GameID] == f {
		delete(s.feeds, snap.GameID)
	}
}
