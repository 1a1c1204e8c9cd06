package game

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/ssh2048/ssh2048/store"
)

// Several nodes on one store. Each node's service is the one writer of
// the games its sessions hold, as on one node; across nodes the store
// keeps the rule: loading a game to play it claims it with a new fencing
// token (store.SavedGame.Fence), every move carries that token
// (store.MoveState.Fence), and the store refuses a move whose token is no
// longer the game's (store.ErrFenced), which the service reports as a
// takeover. The store also announces each claim that took a game from
// another node on the Bus (TopicTakeover), so that the session there ends
// at once instead of at its next move. Processes on one SQLite file (the
// server and `ssh2048 play`) have no bus: the store fences their moves
// the same way and leaves a notice for the process whose game was
// claimed, which it polls for (store.TakeoverNotifier). Spectators, TV and
// races hear of games on other nodes through the Bus too (watch.go,
// package race).

// Bus carries events between the nodes that share a store (package
// store/postgres's LISTEN/NOTIFY bus). Every node's events reach every node, the
// sender's included; an event may be lost while a node is cut off, so
// events carry state, not changes. A single node needs none.
type Bus interface {
	// Publish sends payload (at most a few kilobytes) on topic.
	Publish(ctx context.Context, topic string, payload []byte) error
	// Subscribe calls fn with every event on topic, in order, from one
	// goroutine: fn must not block.
	Subscribe(topic string, fn func(payload []byte)) (unsubscribe func())
}

// TopicTakeover is the topic on which a fencing store announces a claim
// that took a game from another node: "GAME TOKEN NODE", the game's id,
// its new token and the node that held it.
const TopicTakeover = "takeover"

// WithBus connects the service to the other nodes on its store.
func WithBus(b Bus) Option { return func(s *Service) { s.bus = b } }

// listen subscribes the service to the bus's events, or the store's
// takeover notices, once at New.
func (s *Service) listen() {
	if t, ok := s.store.(store.TakeoverNotifier); ok && s.bus == nil {
		t.OnTakeover(s.takenOverBy)
	}
	if s.bus == nil {
		return
	}
	s.bus.Subscribe(TopicTakeover, s.takenOverElsewhere)
	s.listenRemote()
}

// takenOverElsewhere ends this node's session of a game another node has
// claimed: the holder here has an older token than the claim's.
func (s *Service) takenOverElsewhere(payload []byte) {
	f := strings.Fields(string(payload))
	if len(f) < 2 {
		s.log.Warn("bus: bad takeover notice", "payload", string(payload))
		return
	}
	id, err1 := strconv.ParseInt(f[0], 10, 64)
	token, err2 := strconv.ParseInt(f[1], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		s.log.Warn("bus: bad takeover notice", "payload", string(payload), "err", err)
		return
	}
	s.takenOverBy(id, token)
}

// takenOverBy ends this service's session of game id if its token is
// older than token, the claim of another node or process.
func (s *Service) takenOverBy(id, token int64) {
	s.mu.Lock()
	p := s.byID[id]
	s.mu.Unlock()
	if p == nil {
		return
	}
	// Not on the bus's goroutine: revoking waits for the Play's commit in
	// flight, if any.
	go func() {
		p.mu.Lock()
		stale := p.fence != 0 && p.fence < token
		p.mu.Unlock()
		if stale {
			p.revoke(true)
		}
	}()
}

// releaseHold tells a fencing store that p's session gave the game up.
func (s *Service) releaseHold(p *Play) {
	r, ok := s.store.(store.Releaser)
	if !ok || p.fence == 0 {
		return
	}
	id, fence := p.id, p.fence
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		defer cancel()
		if err := r.Release(ctx, id, fence); err != nil {
			s.log.Warn("release game", "game", id, "err", err)
		}
	}()
}
