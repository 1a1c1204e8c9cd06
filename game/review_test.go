package game

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// heldEvaluator is an AI that waits for release before its first answer,
// and counts its searches.
type heldEvaluator struct {
	release  chan struct{}
	searches chan struct{} // one value per search, buffered
	s        *ai.Pool
}

func (h *heldEvaluator) Evaluate(ctx context.Context, b engine.Board, depth int) (ai.Evaluation, error) {
	select {
	case h.searches <- struct{}{}:
	default:
	}
	select {
	case <-h.release:
	case <-ctx.Done():
		return ai.Evaluation{}, ctx.Err()
	}
	return h.s.Evaluate(ctx, b, depth)
}

// endedGame plays a 3×3 game of name's to its end and returns its id.
func endedGame(t *testing.T, svc *Service, name string) int64 {
	t.Helper()
	seat := svc.Seat(identify(t, svc, name), nil)
	defer seat.Close()
	play, err := seat.Open(context.Background(), 3, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	for !play.Over() {
		moveUntilMoved(t, play)
	}
	return play.ID()
}

// TestReviewOnePerPlayer: a player has one review being made at a time;
// another asking for the same game waits for it rather than make it
// again; once made it is stored and served from the store.
func TestReviewOnePerPlayer(t *testing.T) {
	st := openSQLite(t)
	pool := ai.NewPool(1)
	t.Cleanup(pool.Close)
	held := &heldEvaluator{release: make(chan struct{}), searches: make(chan struct{}, 1), s: pool}
	svc := New(st, nil, WithReviews(held))
	first, second := endedGame(t, svc, "ann"), endedGame(t, svc, "ann")
	ann, bob := identify(t, svc, "ann"), identify(t, svc, "bob")
	ctx := context.Background()

	type answer struct {
		r   Reviewed
		err error
	}
	annGot, bobGot := make(chan answer, 1), make(chan answer, 1)
	go func() {
		r, err := svc.Review(ctx, first, ann, netip.Addr{}, nil)
		annGot <- answer{r, err}
	}()
	<-held.searches // ann's review is being made
	if _, err := svc.Review(ctx, second, ann, netip.Addr{}, nil); !errors.Is(err, ErrReviewBusy) {
		t.Fatalf("a second review while the first is made: %v, want ErrReviewBusy", err)
	}
	go func() {
		r, err := svc.Review(ctx, first, bob, netip.Addr{}, nil)
		bobGot <- answer{r, err}
	}()
	close(held.release)
	a, b := <-annGot, <-bobGot
	if a.err != nil || b.err != nil || !bytes.Equal(a.r.JSON, b.r.JSON) || a.r.Cached {
		t.Fatalf("ann: %v (cached %v), bob: %v; same review: %v", a.err, a.r.Cached, b.err, bytes.Equal(a.r.JSON, b.r.JSON))
	}
	stored, err := st.GameReview(ctx, first, review.Version)
	if err != nil || !bytes.Equal(stored, a.r.JSON) {
		t.Fatalf("stored review: %v", err)
	}
	again, err := svc.Review(ctx, first, bob, netip.Addr{}, nil)
	if err != nil || !again.Cached || !bytes.Equal(again.JSON, a.r.JSON) {
		t.Fatalf("the review asked again: %v, cached %v", err, again.Cached)
	}
	if _, err := svc.Review(ctx, second, ann, netip.Addr{}, nil); err != nil {
		t.Fatalf("ann's next review: %v", err)
	}
}

// TestReviewWithoutAI: a server without the AI serves stored reviews and
// makes none.
func TestReviewWithoutAI(t *testing.T) {
	svc := newTestService(t)
	id := endedGame(t, svc, "cy")
	cy := identify(t, svc, "cy")
	if _, err := svc.Review(context.Background(), id, cy, netip.Addr{}, nil); !errors.Is(err, ErrNoReviews) {
		t.Fatalf("review without the AI: %v, want ErrNoReviews", err)
	}
	if err := svc.store.(store.ReviewStore).SaveGameReview(context.Background(), id, review.Version, []byte(`{"version":1}`)); err != nil {
		t.Fatal(err)
	}
	if r, err := svc.Review(context.Background(), id, cy, netip.Addr{}, nil); err != nil || !r.Cached {
		t.Fatalf("stored review without the AI: %v %+v", err, r)
	}
}

// BenchmarkCachedReview serves the stored review of a 1,000-move 4×4
// game from SQLite: the path every review takes after its first.
func BenchmarkCachedReview(b *testing.B) {
	st, err := sqlite.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	svc := New(st, nil)
	ctx := context.Background()
	p, err := svc.Identify(ctx, "SHA256:bench", "ssh-ed25519", "bench")
	if err != nil {
		b.Fatal(err)
	}
	g, err := st.NewGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		b.Fatal(err)
	}
	s := ai.NewSearcher()
	var dirs []engine.Direction
	for len(dirs) < 1000 && !g.Engine.Over() {
		e, err := s.Evaluate(ctx, g.Engine.Board(), review.PlayoutDepth)
		if err != nil {
			b.Fatal(err)
		}
		d, _, _ := e.Best()
		g.Engine.Move(d)
		if err := st.AppendMove(ctx, g.ID, len(dirs), d, store.StateOf(g.Engine)); err != nil {
			b.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	if err := st.EndGame(ctx, g.ID, store.StateOf(g.Engine)); err != nil {
		b.Fatal(err)
	}
	// The moves' part is what makes a review long; the playouts add a
	// few lines.
	r, err := review.Make(ctx, s, review.Game{Size: 4, Generator: g.Engine.Generator(), Seed: g.Seed, Dirs: dirs}, nil)
	if err != nil {
		b.Fatal(err)
	}
	r.Ended = true
	made, err := jsonOf(r)
	if err != nil {
		b.Fatal(err)
	}
	if err := st.SaveGameReview(ctx, g.ID, review.Version, made); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := svc.Review(ctx, g.ID, p, netip.Addr{}, nil)
		if err != nil || !got.Cached || len(got.JSON) != len(made) {
			b.Fatalf("%v, cached %v", err, got.Cached)
		}
	}
	b.ReportMetric(float64(len(made)), "review-bytes")
}

// TestReviewsBeingMadeAreBounded: at most ReviewsPerNetwork reviews are
// made at once for askers of one network, and MaxReviews in all; asking
// for a game whose review is being made waits for it whatever the
// counts, and a review done frees its place.
func TestReviewsBeingMadeAreBounded(t *testing.T) {
	st := openSQLite(t)
	pool := ai.NewPool(1)
	t.Cleanup(pool.Close)
	held := &heldEvaluator{release: make(chan struct{}), searches: make(chan struct{}, MaxReviews+1), s: pool}
	svc := New(st, nil, WithReviews(held))
	var games []int64
	for i := range MaxReviews + 1 {
		games = append(games, endedGame(t, svc, fmt.Sprintf("p%d", i)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ask := func(i int, from string) error {
		_, err := svc.Review(ctx, games[i], identify(t, svc, fmt.Sprintf("asker%d", i)), netip.MustParseAddr(from), func(float64) {})
		return err
	}
	start := func(i int, from string) {
		go ask(i, from) //nolint:errcheck // held until the test ends
		<-held.searches
	}

	for i := range ReviewsPerNetwork {
		start(i, "192.0.2.1")
	}
	if err := ask(ReviewsPerNetwork, "192.0.2.1"); !errors.Is(err, ErrReviewsHere) {
		t.Fatalf("a review past the network's bound: %v, want ErrReviewsHere", err)
	}
	for i := ReviewsPerNetwork; i < MaxReviews; i++ {
		start(i, fmt.Sprintf("198.51.100.%d", i))
	}
	if err := ask(MaxReviews, "203.0.113.1"); !errors.Is(err, ErrTooManyReviews) {
		t.Fatalf("a review past the server's bound: %v, want ErrTooManyReviews", err)
	}
	// Asking for one being made waits for it: no new review.
	waited := make(chan error, 1)
	go func() {
		_, err := svc.Review(ctx, games[0], identify(t, svc, "late"), netip.MustParseAddr("192.0.2.1"), func(float64) {})
		waited <- err
	}()
	close(held.release) // every review ends
	if err := <-waited; err != nil {
		t.Fatalf("asking for a review being made, past every bound: %v, want to wait for it", err)
	}
	waitUntil(t, "every review done", func() bool {
		svc.reviews.mu.Lock()
		defer svc.reviews.mu.Unlock()
		return svc.reviews.making == 0 && len(svc.reviews.byNetwork) == 0
	})
	if err := ask(MaxReviews, "192.0.2.1"); err != nil {
		t.Fatalf("a review once the others are done: %v", err)
	}
}

// waitUntil polls cond until it holds, for up to 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
	}
}
