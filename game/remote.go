package game

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game/latest"
	"github.com/ssh2048/ssh2048/store"
)

// Spectators across nodes. A game is fed to its spectators by the node
// whose session holds it (watch.go). A spectator on another node finds it
// in the store (store.LiveLister: the games held by a node whose lease is
// current, with their snapshot columns as the first board), then asks for
// it on the bus (TopicWatch, again every watchRenew while it watches);
// the holding node publishes the game's snapshot (TopicSnapshot) after
// every move while some node asked within watchExpiry, and once more when
// its player leaves. A snapshot carries the whole board, so a lost one
// costs nothing once the next arrives; one older than what a spectator
// shows is dropped. If the game moves to the spectator's own node, the
// feed is fed locally from then on, as after a takeover on one node.

// Bus topics of spectating.
const (
	TopicWatch    = "watch"    // "GAME": some node's spectators watch game GAME
	TopicSnapshot = "snapshot" // JSON of a remoteSnapshot
)

const (
	watchRenew  = 5 * time.Second  // how often a watching node asks again
	watchExpiry = 15 * time.Second // how long the holding node publishes after the last ask
	outboxSize  = 1024             // snapshots waiting to be published; more are dropped (the next carries the board)
)

// remoteSnapshot is a Snapshot on the bus.
type remoteSnapshot struct {
	GameID    int64
	Player    string
	Size      int
	Kind      store.Kind
	Board     string
	Score     int
	Moves     int
	Won, Over bool
	Last      engine.Result
	Status    Status
	TakenOver int
}

func (r remoteSnapshot) apply(snap *Snapshot) {
	board, err := engine.ParseBoard(r.Board)
	if err != nil {
		return
	}
	// The name sanitized again: another node, of an older version say, may
	// send it as stored, and it is drawn on every spectator's screen.
	snap.GameID, snap.Player, snap.Size, snap.Kind, snap.Board = r.GameID, store.SanitizeName(r.Player), r.Size, r.Kind, board
	snap.Score, snap.Moves, snap.Won, snap.Over, snap.Last = r.Score, r.Moves, r.Won, r.Over, r.Last
	snap.Status, snap.TakenOver = r.Status, r.TakenOver
}

// liveSnapshot is a stored live game as a spectator first sees it.
func liveSnapshot(g store.LiveGame) Snapshot {
	board, _ := engine.ParseBoard(g.Board)
	return Snapshot{GameID: g.GameID, Player: store.DisplayName(g.Player, g.Fingerprint), Size: g.Size, Kind: g.Kind,
		Board: board, Score: g.Score, Moves: g.Moves, Won: g.Won, Status: Live}
}

// listenRemote subscribes to the spectating topics; s.bus is set.
func (s *Service) listenRemote() {
	s.outbox = make(chan remoteSnapshot, outboxSize)
	s.watchedElsewhere = make(map[int64]time.Time)
	go s.publishSnapshots()
	s.bus.Subscribe(TopicWatch, func(payload []byte) {
		id, err := strconv.ParseInt(string(payload), 10, 64)
		if err != nil {
			return
		}
		s.mu.Lock()
		p := s.byID[id]
		if p != nil && s.dailyOn(p.key.contest) {
			p = nil // not shown until the day is over, on any node
		}
		if p != nil {
			s.watchedElsewhere[id] = s.now().Add(watchExpiry)
		}
		s.mu.Unlock()
		if p != nil {
			go func() { // the asking node's first board, at once
				p.mu.Lock()
				defer p.mu.Unlock()
				p.announce(engine.Result{})
			}()
		}
	})
	s.bus.Subscribe(TopicSnapshot, func(payload []byte) {
		var r remoteSnapshot
		if json.Unmarshal(payload, &r) != nil {
			return
		}
		s.mu.Lock()
		f, local := s.feeds[r.GameID], s.byID[r.GameID] != nil
		s.mu.Unlock()
		if f == nil || local {
			return
		}
		f.Update(func(snap *Snapshot) {
			if r.Moves >= snap.Moves || r.Status != snap.Status || r.TakenOver != snap.TakenOver {
				r.apply(snap)
			}
		})
	})
}

// announce publishes p's game to the nodes that watch it, if any; p.mu is
// held.
func (p *Play) announce(last engine.Result) { p.announceAs(last, Live) }

// announceLeft tells the nodes that watch p's game that its player left.
func (p *Play) announceLeft() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.announceAs(engine.Result{}, Left)
}

// announceAs is announce with the status a live game is shown with.
func (p *Play) announceAs(last engine.Result, status Status) {
	s := p.seat.svc
	if s.bus == nil || p.guest {
		return
	}
	s.mu.Lock()
	if status == Left {
		if q := s.byID[p.id]; q != nil && q != p {
			// The game was opened again here (Close announces on a
			// goroutine of its own): its player has not left, and its
			// new Play goes on publishing to those who asked.
			s.mu.Unlock()
			return
		}
	}
	until, ok := s.watchedElsewhere[p.id]
	if ok && (s.now().After(until) || status == Left) {
		// Asked too long ago, or told for the last time: the player left.
		delete(s.watchedElsewhere, p.id)
		ok = ok && status == Left
	}
	s.mu.Unlock()
	if !ok {
		return
	}
	var snap Snapshot
	p.fill(&snap)
	if snap.Status == Live {
		snap.Status = status
	}
	if p.feed != nil {
		cur, _ := p.feed.Get()
		snap.TakenOver = cur.TakenOver
	}
	r := remoteSnapshot{GameID: snap.GameID, Player: snap.Player, Size: snap.Size, Kind: snap.Kind, Board: snap.Board.String(),
		Score: snap.Score, Moves: snap.Moves, Won: snap.Won, Over: snap.Over, Last: last, Status: snap.Status, TakenOver: snap.TakenOver}
	select {
	case s.outbox <- r:
	default: // the bus is behind: the next snapshot carries the board
	}
}

// publishSnapshots sends the outbox on the bus, in order.
func (s *Service) publishSnapshots() {
	for r := range s.outbox {
		payload, err := json.Marshal(r)
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		if err := s.bus.Publish(ctx, TopicSnapshot, payload); err != nil {
			s.log.Warn("bus: publish snapshot", "game", r.GameID, "err", err)
		}
		cancel()
	}
}

// watchElsewhere starts watching game id, held on another node, until the
// watch is closed or ctx ends.
func (s *Service) watchElsewhere(ctx context.Context, id int64) (*Watch, error) {
	live, ok := s.store.(store.LiveLister)
	if s.bus == nil || !ok {
		return nil, ErrNotLive
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	games, err := live.LiveGames(rctx, 0, id)
	if err != nil {
		return nil, err
	}
	if len(games) == 0 {
		return nil, ErrNotLive
	}
	if s.dailyOn(games[0].Contest) {
		return nil, ErrDailyOn
	}
	s.mu.Lock()
	f := s.feeds[id]
	fresh := f == nil
	if fresh {
		f = latest.New(liveSnapshot(games[0]))
		s.feeds[id] = f
	}
	s.mu.Unlock()
	f.Update(func(snap *Snapshot) { snap.Watchers++ })
	if fresh {
		go s.keepAsking(id, f)
	}
	return s.newWatch(ctx, f), nil
}

// keepAsking asks the holding node for game id's moves while f is the
// feed this node's spectators watch.
func (s *Service) keepAsking(id int64, f *feed) {
	t := time.NewTicker(watchRenew)
	defer t.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		if err := s.bus.Publish(ctx, TopicWatch, []byte(strconv.FormatInt(id, 10))); err != nil {
			s.log.Warn("bus: ask for a game", "game", id, "err", err)
		}
		cancel()
		<-t.C
		s.mu.Lock()
		still := s.feeds[id] == f && s.byID[id] == nil
		s.mu.Unlock()
		if !still {
			return
		}
	}
}

// liveElsewhere lists the games held on other nodes, of one size (0:
// every size), that this node does not hold, today's daily games
// included: callers leave those out (ErrDailyOn).
func (s *Service) liveElsewhere(size int) []store.LiveGame {
	live, ok := s.store.(store.LiveLister)
	if s.bus == nil || !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	games, err := live.LiveGames(ctx, size, 0)
	if err != nil {
		s.log.Warn("list live games", "err", err)
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := games[:0]
	for _, g := range games {
		if s.byID[g.GameID] == nil {
			out = append(out, g)
		}
	}
	return out
}
