package game

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine/ai"
)

// TestReviewAskersWhoLeaveAreForgotten: everyone who asks for the review of
// a game whose review is being made waits for it and is told its progress
// (reviewFlight.listen); one who stops waiting (their session ended,
// `review` gave up) must be forgotten then. A review of a long game takes
// minutes to hours at the lowest priority, and anyone may ask for it,
// guests too, as often as they may open sessions: each ask that stayed
// grew the flight's list, and every progress report (one a position)
// called every function in it under the flight's lock.
func TestReviewAskersWhoLeaveAreForgotten(t *testing.T) {
	st := openSQLite(t)
	pool := ai.NewPool(1)
	t.Cleanup(pool.Close)
	held := &heldEvaluator{release: make(chan struct{}), searches: make(chan struct{}, 1), s: pool}
	t.Cleanup(func() { close(held.release) })
	svc := New(st, nil, WithReviews(held))
	id := endedGame(t, svc, "ann")
	ann, guest := identify(t, svc, "ann"), Player{Name: "guest", Guest: true}

	// Ann's review is being made, and held there.
	go svc.Review(context.Background(), id, ann, netip.Addr{}, nil) //nolint:errcheck // it ends with the test
	<-held.searches

	// Guests ask for it, each giving up at once, as a client that opens a
	// session, asks and closes it.
	const asks = 1000
	for range asks {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		_, err := svc.Review(ctx, id, guest, netip.Addr{}, func(float64) {})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("an ask that gave up: %v, want the deadline", err)
		}
	}
	svc.reviews.mu.Lock()
	f := svc.reviews.byGame[id]
	svc.reviews.mu.Unlock()
	if f == nil {
		t.Fatal("the review is not being made")
	}
	f.mu.Lock()
	n := len(f.listeners)
	f.mu.Unlock()
	// Ann's, still waiting: no one else is.
	if n > 1 {
		t.Fatalf("%d askers who gave up left %d listeners on the review being made, want at most the 1 still waiting", asks, n)
	}
}
