package postgres

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/ranks"
)

// PlayerRank returns the player's best game of a size and kind with its
// rank, or store.ErrNotFound. The header reads it every few seconds for
// every player, so it is answered from the ranks kept in memory (package
// ranks): this node's writes keep them up to date as they commit, and the
// other nodes' writes make them load again (see ranksChanged).
func (s *Store) PlayerRank(ctx context.Context, playerID int64, size int, kind store.Kind) (store.Entry, error) {
	return s.ranks.PlayerRank(ctx, playerID, size, kind)
}

// UpsertPlayer is the accounts' login by key (accounts.Methods), which
// also tells the ranks the account's name and fingerprint: a player's
// first best then needs no load of its board for them.
func (s *Store) UpsertPlayer(ctx context.Context, fingerprint, keyType, rawName string) (store.Player, error) {
	p, err := s.Methods.UpsertPlayer(ctx, fingerprint, keyType, rawName)
	if err == nil {
		s.ranks.Renamed(p.ID, p.Name, p.Fingerprint)
	}
	return p, err
}

// loadBoard reads every player's best of a board, or every game of a
// contest's, for package ranks.
func (s *Store) loadBoard(ctx context.Context, b ranks.Board) ([]ranks.Row, error) {
	if b.Contest == "" {
		if err := s.offerMarkedBests(ctx); err != nil {
			return nil, err
		}
	}
	query, args := ranks.BoardQuery+` WHERE b.size = $1 AND b.kind = $2`, []any{b.Size, string(b.Kind)}
	if b.Contest != "" {
		query, args = ranks.ContestQuery+` WHERE g.contest = $1 AND g.size = $2 AND NOT g.hidden`, []any{b.Contest, b.Size}
	}
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return ranks.ScanRows(rows)
}

// TopicRanks is the bus topic on which a node says that its writes
// changed a best: the payload is the node's name, and for an admin's hide
// or unhide a newline and its news (hiddenNews), which the other nodes'
// ranks follow as the node's own do (ranks.Index.Hidden). The other nodes load
// their ranks again when they next rank (at most once a ranksEvery from
// each writing node); events can be lost while a node is cut off from
// the bus, so a node also loads its ranks again every ranksMaxAge.
const TopicRanks = "ranks"

const (
	ranksEvery  = 250 * time.Millisecond
	ranksMaxAge = 30 * time.Second
)

// newRanks makes the store's ranks and has them follow the other nodes.
func (s *Store) newRanks(every time.Duration) {
	var changed atomic.Bool
	s.ranks = ranks.New(s.loadBoard, ranks.MaxAge(ranksMaxAge), ranks.OnChange(func() { changed.Store(true) }))
	s.bus.Subscribe(TopicRanks, func(payload []byte) {
		from, news, _ := strings.Cut(string(payload), "\n")
		if from == s.node {
			return
		}
		if player, game, hide, ok := parseHidden(news); ok {
			s.ranks.Hidden(player, game, hide)
			return
		}
		s.ranks.Invalidate()
	})
	s.ranksDone = make(chan struct{})
	go s.ranksChanged(&changed, every)
}

// ranksChanged offers the marked games to the bests every ranksEvery
// (bests.go) and then, if this node's writes changed a best since the
// last tick, tells the other nodes, until Close.
func (s *Store) ranksChanged(changed *atomic.Bool, every time.Duration) {
	defer close(s.ranksDone)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		// Swapped before the offer takes the marks: a move marks its game
		// before it changes the ranks, so one that changes them after the
		// swap is told of on the next tick, after its own offer.
		if tell := changed.Swap(false); !s.offerAndTell(tell) && tell {
			changed.Store(true)
		}
	}
}

// offerAndTell offers the marked games to the bests and then, if tell,
// tells the other nodes that this node's ranks changed; false if either
// failed.
func (s *Store) offerAndTell(tell bool) bool {
	ctx, cancel := context.WithTimeout(context.Background(), ranksEvery*4)
	defer cancel()
	if err := s.offerMarkedBests(ctx); err != nil {
		s.log.Warn("db: offering games to the bests failed", "err", err)
		s.obs.Failed("bests")
		return false
	}
	if !tell {
		return true
	}
	if err := s.bus.Publish(ctx, TopicRanks, []byte(s.node)); err != nil {
		s.log.Warn("db: tell the other nodes of changed ranks", "err", err)
		return false
	}
	return true
}
