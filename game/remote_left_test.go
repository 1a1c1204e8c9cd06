package game

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"

	"github.com/ssh2048/ssh2048/store"
)

// recordingBus is a Bus on one node: what is published is recorded, and
// a test delivers what other nodes would send (deliver).
type recordingBus struct {
	mu        sync.Mutex
	subs      map[string][]func([]byte)
	published []remoteSnapshot
}

func (b *recordingBus) Publish(_ context.Context, topic string, payload []byte) error {
	if topic != TopicSnapshot {
		return nil
	}
	var r remoteSnapshot
	if err := json.Unmarshal(payload, &r); err != nil {
		return err
	}
	b.mu.Lock()
	b.published = append(b.published, r)
	b.mu.Unlock()
	return nil
}

func (b *recordingBus) Subscribe(topic string, fn func([]byte)) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = map[string][]func([]byte){}
	}
	b.subs[topic] = append(b.subs[topic], fn)
	return func() {}
}

func (b *recordingBus) deliver(topic string, payload []byte) {
	b.mu.Lock()
	fns := b.subs[topic]
	b.mu.Unlock()
	for _, fn := range fns {
		fn(payload)
	}
}

func (b *recordingBus) snapshots() []remoteSnapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]remoteSnapshot(nil), b.published...)
}

// TestReopenedGameIsNotAnnouncedAsLeft: a session that opens its game
// again (after a move not saved, say) closes its Play and opens another on
// the same game. The closed Play tells the other nodes' spectators that
// its player left, on a goroutine of its own (Play.Close); when that runs
// after the new Play holds the game, the spectators were shown the game as
// left while it was played on, and the holding node stopped publishing
// its moves until they asked again.
func TestReopenedGameIsNotAnnouncedAsLeft(t *testing.T) {
	ctx := context.Background()
	bus := &recordingBus{}
	svc := New(openSQLite(t), nil, WithBus(bus))
	ann := identify(t, svc, "ann")
	seat := svc.Seat(ann, nil)
	t.Cleanup(seat.Close)
	first, err := seat.Open(ctx, 4, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	id := first.ID()
	bus.deliver(TopicWatch, []byte(strconv.FormatInt(id, 10))) // another node's spectators watch
	waitUntil(t, "the first board published", func() bool { return len(bus.snapshots()) > 0 })

	// The closed Play's goroutine runs once the new Play holds the game.
	first.mu.Lock()
	first.Close()
	second, err := seat.Open(ctx, 4, store.KindHuman, false)
	first.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if second.ID() != id {
		t.Fatalf("opened game %d again as %d", id, second.ID())
	}
	// Whether or not Close's goroutine has run, this one says what it
	// says, before the move: snapshots are published in order.
	first.announceLeft()
	moveUntilMoved(t, second)
	waitUntil(t, "the move published", func() bool {
		s := bus.snapshots()
		return s[len(s)-1].Moves == second.Moves()
	})
	for _, r := range bus.snapshots() {
		if r.Status == Left {
			t.Fatalf("game %d, played on, was announced as left: %+v", id, bus.snapshots())
		}
	}
}
