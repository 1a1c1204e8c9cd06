package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// A player's best of a board (player_bests) follows from their games, and
// every game's score and the moment it was reached are stored with each
// move. Offering the game to the best in every scoring move's own
// transaction (a trigger did, before migration 00016) took a large share
// of the writer's time a move, one row of player_bests and its rank index
// rewritten a move, for a table that only a leaderboard and a board's
// load read, and that the ranks in memory (ranks.go) follow without it.
// So a move only marks its game, and the marked games are offered
// together, in one statement, in these cases:
//
//   - before this process reads player_bests (Leaderboard, a board's load
//     for the ranks), so that it reads every move committed before;
//   - at least once a bestsEvery, for other processes that read the file
//     (`ssh2048 scores` beside the server);
//   - on Close.
//
// A game's end and a change of its kind still offer it at once (the
// trigger games_offer_best). After a crash, the games in play are offered
// again when the file is next opened (offerGamesInPlay), so no best stays
// behind its game. Offering a game twice, or an older state after a newer,
// changes nothing: the rule keeps the better score, or the same score
// reached earlier, and a game's score never goes down.
const bestsEvery = time.Second

// offerBestsOf offers the games that match a condition on games (%s) to
// their players' bests.
const offerBestsOf = `
	INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
	SELECT player_id, size, kind, id, score, reached_at FROM games
	WHERE (%s) AND contest = '' AND hidden = 0 AND moves > 0
	ON CONFLICT (player_id, size, kind) DO UPDATE
	SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
	WHERE excluded.score > player_bests.score
	   OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at)`

var (
	offerMarked = fmt.Sprintf(offerBestsOf, `id IN (SELECT value FROM json_each(?))`)
	offerInPlay = fmt.Sprintf(offerBestsOf, `ended_at IS NULL`)
)

// markedGames are the games moved since they were last offered to the
// bests. The writer marks them, in the moves' transactions; an offer takes
// them, and puts them back if it did not commit.
type markedGames struct {
	mu       sync.Mutex
	games    map[int64]struct{}
	inFlight int    // offers under way (queued, or taken and not yet committed)
	queued   *offer // the offer queued that has not taken the games yet, if any
}

// offer is one offer of the marked games; done is closed once it has
// committed or failed (err).
type offer struct {
	done chan struct{}
	err  error
}

func (m *markedGames) mark(game int64) {
	m.mu.Lock()
	if m.games == nil {
		m.games = map[int64]struct{}{}
	}
	m.games[game] = struct{}{}
	m.mu.Unlock()
}

// join returns the offer a read of the bests waits for: nil if none is
// needed (nothing marked, no offer under way); else the offer queued and
// not yet taken, which will take every game marked before, shared by every
// read that comes meanwhile (lead false); else a new one, which the caller
// runs (lead true). An offer that has taken its games already cannot be
// joined (a move may have committed since it took them), but a new one
// commits after it: the writer runs its groups in order.
func (m *markedGames) join() (o *offer, lead bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case len(m.games) == 0 && m.inFlight == 0:
		return nil, false
	case m.queued != nil:
		return m.queued, false
	}
	m.queued = &offer{done: make(chan struct{})}
	m.inFlight++
	return m.queued, true
}

// take returns the games marked and forgets them, for offer o: later
// reads no longer join it.
func (m *markedGames) take(o *offer) (ids []int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.queued == o {
		m.queued = nil
	}
	ids = make([]int64, 0, len(m.games))
	for id := range m.games {
		ids = append(ids, id)
	}
	clear(m.games)
	return ids
}

// done ends offer o of ids (if it took any): failed, they are marked
// again.
func (m *markedGames) done(o *offer, ids []int64, err error) {
	m.mu.Lock()
	if m.queued == o {
		m.queued = nil
	}
	m.inFlight--
	if err != nil {
		if m.games == nil {
			m.games = map[int64]struct{}{}
		}
		for _, id := range ids {
			m.games[id] = struct{}{}
		}
	}
	m.mu.Unlock()
	o.err = err
	close(o.done)
}

// offerMarkedBests offers the marked games to the bests, in the writer's
// next group, and returns once that has committed: every move committed
// before the call is then in player_bests. Nothing marked and no offer
// under way: it returns at once. Reads that come together share one
// offer, so that many reads cost the writer one statement.
func (s *Store) offerMarkedBests(ctx context.Context) error {
	o, lead := s.marked.join()
	if o == nil {
		return nil
	}
	if lead {
		s.runOffer(o)
	}
	select {
	case <-o.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if o.err != nil {
		return fmt.Errorf("offer the games moved to the bests: %w", o.err)
	}
	return nil
}

// runOffer runs offer o in the writer. Its reads may have contexts of
// their own, so it runs on none of theirs: a read that gives up does not
// fail the others.
func (s *Store) runOffer(o *offer) {
	var (
		ids   []int64
		taken bool
	)
	err := s.w.do(context.Background(), func(ctx context.Context, tx *sql.Tx, _ int64) error {
		// A group that fails runs its writes again: take once.
		if !taken {
			ids, taken = s.marked.take(o), true
		}
		if len(ids) == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, offerMarked, idsJSON(ids))
		return err
	})
	s.marked.done(o, ids, err)
}

func idsJSON(ids []int64) string {
	b := make([]byte, 0, 2+len(ids)*8)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

// offerBestsLoop offers the marked games every period, until Close.
func (s *Store) offerBestsLoop(period time.Duration) {
	defer close(s.bestsDone)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-s.stopBests:
			return
		case <-t.C:
		}
		if err := s.offerMarkedBests(context.Background()); err != nil {
			s.log.Warn("db: offering games to the bests failed", "err", err)
			s.obs.Failed("bests")
		}
	}
}

// offerGamesInPlay offers every game in play to the bests: what a process
// that stopped without Close had marked and not offered.
func offerGamesInPlay(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, offerInPlay); err != nil {
		return fmt.Errorf("offer the games in play to the bests: %w", err)
	}
	return nil
}
