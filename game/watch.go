package game

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game/latest"
	"github.com/ssh2048/ssh2048/store"
)

// Errors of watching; callers branch on them with errors.Is.
var (
	// ErrNotLive: no one is playing that game (or that player has no game
	// in progress) on this server right now.
	ErrNotLive = errors.New("not being played right now")
	// ErrNotWatchable: guests' games are not watched.
	ErrNotWatchable = errors.New("guest games cannot be watched")
	// ErrDailyOn: a game of today's daily challenge, which is not shown
	// (watched, replayed or exported) until the day is over: everyone
	// plays the day on the same tiles.
	// Everyone plays the day on the same tiles: its boards shown before
	// the day is over would tell those who have not played yet what is
	// coming. It is neither watched nor replayed until it ends.
	ErrDailyOn = errors.New("a game of today's daily challenge: it is shown once the day is over")
	// ErrRaceOn: a game of a race that may still be running, whose record,
	// replay and review are kept back until MaxRaceTime after it started:
	// its seed is every racer's, and a racer whose board is over has an
	// ended game while the others still play.
	ErrRaceOn = errors.New("a game of a race that may still be running: it is shown once the race is over")
)

// MaxRaceTime is the longest a race runs (package race allows no longer).
// A race's games start as it starts, so MaxRaceTime after its game
// started every racer's clock has run out, on whichever node the race
// ran, whatever the race's length.
const MaxRaceTime = 10 * time.Minute

// raceOn reports whether g is of a race that may still be running.
func (s *Service) raceOn(g store.FullGame) bool {
	return strings.HasPrefix(g.Contest, "race:") && s.now().Before(g.StartedAt.Add(MaxRaceTime))
}

// keptBack is why a game's record, replay and review are not shown yet:
// ErrDailyOn or ErrRaceOn, or nil.
func (s *Service) keptBack(g store.FullGame) error {
	switch {
	case s.dailyOn(g.Contest):
		return ErrDailyOn
	case s.raceOn(g):
		return ErrRaceOn
	}
	return nil
}

// dailyOn reports whether a game of contest is of today's (or a later
// day's) daily challenge.
func (s *Service) dailyOn(contest string) bool {
	return DailyOn(contest, s.Today())
}

// DailyOn reports whether a game of contest belongs to a daily challenge
// whose day (UTC, as Service.Today gives it) is not over yet: such a game
// is neither watched nor replayed (ErrDailyOn), so no page should offer it.
func DailyOn(contest, today string) bool {
	// A daily game an account merge moved aside is "merged:daily:DAY"
	// (store/internal/accounts): its seed is still that day's.
	contest = strings.TrimPrefix(contest, "merged:")
	return strings.HasPrefix(contest, "daily:") && contest >= dailyContest(today)
}

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
	Key      string // the player's short id (store.ShortID); "" for a guest
	Size     int
	Kind     store.Kind
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
type feed = latest.Value[Snapshot]

// SpectatorLag is how long after its player's move the spectators of a
// game are woken to show it: time for the player's own frame to be drawn
// and sent first (a millisecond or two), before hundreds of spectators'
// frames want the CPU. Well under a frame interval a person notices.
const SpectatorLag = 10 * time.Millisecond

// watchersLag is how long a change in the number of spectators waits to
// be shown to them, with every other change in that time: when hundreds
// arrive at once, each of them redraws once or twice, not once for every
// other.
const watchersLag = 500 * time.Millisecond

// Watch is one spectator of one game. Next and Poll are called from one
// goroutine; Changed from any.
type Watch struct {
	svc  *Service
	feed *feed
	seen atomic.Uint64 // the version Next or Poll returned last
	once sync.Once
	// stop undoes the closing of the watch when its context ends, once
	// it is closed before.
	stop func() bool
}

// newWatch is a watch of f that ends with ctx at the latest: a spectator
// whose session ends without its screen quitting (a dropped connection)
// stops watching all the same.
func (s *Service) newWatch(ctx context.Context, f *feed) *Watch {
	w := &Watch{svc: s, feed: f}
	w.stop = context.AfterFunc(ctx, w.Close)
	return w
}

// Next returns the game's newest snapshot: at once the first time, then
// once there is a newer one than the last returned, or ctx's error.
func (w *Watch) Next(ctx context.Context) (Snapshot, error) {
	snap, version, err := w.feed.Next(ctx, w.seen.Load())
	if err != nil {
		return Snapshot{}, err
	}
	w.seen.Store(version)
	snap.Version = version
	return snap, nil
}

// Changed returns a channel that is closed once there is a snapshot newer
// than the last Next or Poll returned (closed already if there is): for
// a spectator's screen that waits on it with the rest of its session,
// rather than on a goroutine of its own.
func (w *Watch) Changed() <-chan struct{} { return w.feed.ChangedSince(w.seen.Load()) }

// Poll returns the game's newest snapshot if it is newer than the last
// Next or Poll returned, without waiting.
func (w *Watch) Poll() (Snapshot, bool) {
	snap, version := w.feed.Get()
	if version <= w.seen.Load() {
		return Snapshot{}, false
	}
	w.seen.Store(version)
	snap.Version = version
	return snap, true
}

// Close stops watching.
func (w *Watch) Close() {
	w.once.Do(func() {
		w.stop()
		var id int64
		w.feed.UpdateSoon(func(snap *Snapshot) { snap.Watchers--; id = snap.GameID }, watchersLag)
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
// (on any of its nodes, when they share a store and a Bus), until the
// watch is closed or ctx ends.
func (s *Service) Watch(ctx context.Context, id int64) (*Watch, error) {
	s.mu.Lock()
	p := s.byID[id]
	s.mu.Unlock()
	if p == nil {
		return s.watchElsewhere(ctx, id)
	}
	if s.dailyOn(p.key.contest) {
		return nil, ErrDailyOn
	}
	f := p.watched()
	f.UpdateSoon(func(snap *Snapshot) { snap.Watchers++ }, watchersLag)
	p.seat.watchersChanged()
	return s.newWatch(ctx, f), nil
}

// WatchPlayer starts watching the game in play of a player named by their
// display name (as shown, case included) or, when names look alike, by
// their short id or its tag ("#" and at least 6 of its characters, as the
// boards show it): the game with the most moves if they play several at
// once.
func (s *Service) WatchPlayer(ctx context.Context, who string) (*Watch, error) {
	p, daily := s.playerPlay(who)
	if p != nil {
		return s.Watch(ctx, p.id)
	}
	g, dailyElsewhere := s.playerElsewhere(who)
	if g != nil {
		return s.Watch(ctx, g.GameID)
	}
	if daily || dailyElsewhere {
		return nil, ErrDailyOn
	}
	return nil, ErrNotLive
}

// Playing returns the game WatchPlayer(who) would watch, as it stands,
// without watching it: for a spectator who follows a player from one game
// to the next, and checks whether they started another.
func (s *Service) Playing(who string) (Snapshot, bool) {
	if p, _ := s.playerPlay(who); p != nil {
		return p.Snapshot(), true
	}
	if g, _ := s.playerElsewhere(who); g != nil {
		return liveSnapshot(*g), true
	}
	return Snapshot{}, false
}

// tagOf is the short id a "#tag" names, if who is one.
func tagOf(who string) (id string, byID bool) {
	id, byID = strings.CutPrefix(who, "#")
	return id, byID && len(id) >= 6
}

// playerPlay is the game in play on this node of the player who names
// (see WatchPlayer), or nil; daily is set when they play today's daily
// challenge, which is not shown (ErrDailyOn).
func (s *Service) playerPlay(who string) (best *Play, daily bool) {
	id, byID := tagOf(who)
	for _, p := range s.plays() {
		pl := p.seat.player
		if pl.Name != who && !(byID && strings.HasPrefix(store.ShortID(pl.Fingerprint), id)) {
			continue
		}
		if s.dailyOn(p.key.contest) {
			daily = true
			continue
		}
		if best == nil || p.Moves() > best.Moves() {
			best = p
		}
	}
	return best, daily
}

// playerElsewhere is playerPlay for a player whose games are held on
// other nodes: the stored game, or nil.
func (s *Service) playerElsewhere(who string) (best *store.LiveGame, daily bool) {
	id, byID := tagOf(who)
	for _, g := range s.liveElsewhere(0) {
		match := store.DisplayName(g.Player, g.Fingerprint) == who || (byID && strings.HasPrefix(store.ShortID(g.Fingerprint), id))
		switch {
		case !match:
		case s.dailyOn(g.Contest):
			daily = true
		case best == nil || g.Moves > best.Moves:
			best = &g
		}
	}
	return best, daily
}

// Live returns a snapshot of every game in play on this server (on every
// node, when they share a store and a Bus), of every size when size is 0;
// guests' games, hidden games (an admin's hide) and games of today's
// daily challenge (ErrDailyOn) are not listed.
func (s *Service) Live(size int) []Snapshot {
	var out []Snapshot
	plays := s.plays()
	s.refreshHidden(plays)
	for _, p := range plays {
		if (size == 0 || p.key.size == size) && !s.dailyOn(p.key.contest) && !p.isHidden() {
			out = append(out, p.Snapshot())
		}
	}
	for _, g := range s.liveElsewhere(size) {
		if !s.dailyOn(g.Contest) {
			out = append(out, liveSnapshot(g))
		}
	}
	return out
}

// BestLive is the game TV shows of snaps: of those being played, the
// highest score; on equal scores the one with fewer moves (it got there
// first), then the older game.
func BestLive(snaps []Snapshot) (Snapshot, bool) {
	var best Snapshot
	found := false
	for _, sn := range snaps {
		if sn.Status != Live {
			continue
		}
		if !found || sn.Score > best.Score || (sn.Score == best.Score &&
			(sn.Moves < best.Moves || (sn.Moves == best.Moves && sn.GameID < best.GameID))) {
			best, found = sn, true
		}
	}
	return best, found
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
	if snap, _ := f.Get(); snap.Watchers == 0 && s.feeds[snap.GameID] == f {
		delete(s.feeds, snap.GameID)
	}
}

// hiddenEvery is how often Live asks the store which of the games held
// here an admin has hidden since they were opened (a player hidden while
// playing: admin hide NAME, on any node or the console).
const hiddenEvery = 2 * time.Second

// HiddenChanged tells the service that an admin hid or put back a player
// here: the next Live asks the store at once (refreshHidden).
func (s *Service) HiddenChanged() {
	s.mu.Lock()
	s.hiddenAsked = time.Time{}
	s.mu.Unlock()
}

// refreshHidden asks the store which of plays are hidden now, at most
// every hiddenEvery.
func (s *Service) refreshHidden(plays []*Play) {
	m, ok := s.store.(store.Moderator)
	if !ok {
		return
	}
	now := s.now()
	s.mu.Lock()
	due := now.Sub(s.hiddenAsked) >= hiddenEvery
	if due {
		s.hiddenAsked = now
	}
	s.mu.Unlock()
	if !due {
		return
	}
	ids := make([]int64, 0, len(plays))
	for _, p := range plays {
		if !p.guest {
			ids = append(ids, p.id)
		}
	}
	if len(ids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	hidden, err := m.HiddenGames(ctx, ids)
	if err != nil {
		s.log.Warn("read hidden games", "err", err)
		return
	}
	for _, p := range plays {
		if !p.guest {
			p.hidden.Store(hidden[p.id])
		}
	}
}
