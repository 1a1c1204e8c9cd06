// Package bests lets a store offer its games to the players' bests
// together rather than a move at a time. A player's best of a board
// (player_bests) follows from their games, and every game's score and the
// moment it was reached are stored with each move. Offering the game to
// the best in every scoring move's own transaction rewrites a row of
// player_bests and its rank index a move, for a table that only
// leaderboards and the loads of the ranks in memory read. So a move only
// marks its game (Marked.Mark), and the store offers the marked games in
// one statement (Marked.Offer) before it reads player_bests, and at least
// every so often for the other processes or nodes that read it.
//
// Reads that come while an offer is queued share it, so a flood of
// leaderboard reads costs the writer one statement at a time, not one a
// read. An offer that has already taken its games cannot be joined: a
// move may have committed after it took them. A failed offer marks its
// games again.
//
// The statements are the stores' own (SQLite's and PostgreSQL's differ);
// this package only keeps the marks and the offers' order.
package bests

import (
	"context"
	"fmt"
	"sync"
)

// Marked are the games moved since they were last offered to the bests.
// The zero value is ready to use.
type Marked struct {
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

// Mark marks game, to be offered by the next offer that takes the marks.
// The store marks a move's game before the move's AppendMove returns.
func (m *Marked) Mark(game int64) {
	m.mu.Lock()
	if m.games == nil {
		m.games = map[int64]struct{}{}
	}
	m.games[game] = struct{}{}
	m.mu.Unlock()
}

// Offer returns once every game marked before the call has been offered
// and the offer has committed; with nothing marked and no offer under
// way, at once. If it leads a new offer, it calls run, which must queue
// one write in the store's writer, take the games from take inside it
// (take returns the same games if the write runs again), offer them and
// return once it has committed or failed. Reads that come meanwhile wait
// for the same offer.
func (m *Marked) Offer(ctx context.Context, run func(take func() []int64) error) error {
	o, lead := m.join()
	if o == nil {
		return nil
	}
	if lead {
		var (
			ids   []int64
			taken bool
		)
		err := run(func() []int64 {
			if !taken {
				ids, taken = m.take(o), true
			}
			return ids
		})
		m.done(o, ids, err)
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

// join returns the offer a read of the bests waits for: nil if none is
// needed (nothing marked, no offer under way); else the offer queued and
// not yet taken, which will take every game marked before, shared by every
// read that comes meanwhile (lead false); else a new one, which the caller
// runs (lead true). An offer that has taken its games already cannot be
// joined, but a new one commits after it: the writer runs its groups in
// order.
func (m *Marked) join() (o *offer, lead bool) {
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
func (m *Marked) take(o *offer) (ids []int64) {
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
func (m *Marked) done(o *offer, ids []int64, err error) {
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
