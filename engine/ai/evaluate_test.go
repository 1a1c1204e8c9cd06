package ai

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestEvaluateMatchesSearch: the move Evaluate values highest is the one a
// search of the same fixed depth plays, on boards of a real game, and the
// values do not depend on what the searcher searched before.
func TestEvaluateMatchesSearch(t *testing.T) {
	s, fresh := NewSearcher(), NewSearcher()
	for i, b := range gameBoards(t, 4, 5, 40) {
		for _, depth := range []int{1, 2} {
			ev, err := s.Evaluate(context.Background(), b, depth)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Search(context.Background(), b, fixedDepth(depth))
			if err != nil {
				t.Fatal(err)
			}
			if d, _, _ := ev.Best(); d != res.Dir {
				t.Errorf("board %d depth %d: Evaluate's best %v, Search's %v", i, depth, d, res.Dir)
			}
			again, err := fresh.Evaluate(context.Background(), b, depth)
			if err != nil {
				t.Fatal(err)
			}
			if again.Values != ev.Values || again.Legal != ev.Legal {
				t.Errorf("board %d depth %d: %v from a used searcher, %v from a fresh one", i, depth, ev.Values, again.Values)
			}
		}
	}
	if _, err := s.Evaluate(context.Background(), mustParse(t, "2 4 2/4 2 4/2 4 2"), 1); !errors.Is(err, ErrNoMoves) {
		t.Errorf("a finished game: %v, want ErrNoMoves", err)
	}
}

// TestHintPreemptsReview: a hint that finds the only worker evaluating
// for a review stops the evaluation, which runs again afterwards and
// gives exactly what it would have given uncut.
func TestHintPreemptsReview(t *testing.T) {
	var mu sync.Mutex
	seen := map[Priority]int{}
	p := newTestPool(t, 1, WithBudget(Budget{MaxDepth: 1}), WithSearchObserver(func(prio Priority, _ time.Duration) {
		mu.Lock()
		seen[prio]++
		mu.Unlock()
	}))
	board := mustParse(t, "2 4 8 16/4 8 16 32/0 2 0 4/0 0 2 0")
	const depth = 7 // uncut, a long search
	type outcome struct {
		ev  Evaluation
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		ev, err := p.Evaluate(context.Background(), board, depth)
		done <- outcome{ev, err}
	}()
	for busy := false; !busy; {
		time.Sleep(time.Millisecond)
		p.mu.Lock()
		busy = p.workers[0].busy
		p.mu.Unlock()
	}
	if _, err := p.Hint(context.Background(), board); err != nil {
		t.Fatalf("hint: %v", err)
	}
	select {
	case <-done:
		t.Fatal("the evaluation finished before the hint")
	default:
	}
	got := <-done
	if got.err != nil {
		t.Fatalf("evaluate: %v", got.err)
	}
	want, err := NewSearcher().Evaluate(context.Background(), board, depth)
	if err != nil {
		t.Fatal(err)
	}
	if got.ev.Values != want.Values {
		t.Errorf("the evaluation run again gave %v, uncut %v", got.ev.Values, want.Values)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen[Review] != 2 || seen[Hint] != 1 {
		t.Errorf("searches seen: %v; want the evaluation cut once and run again", seen)
	}
}

// TestReviewWaitsBehindAutoplay: queued requests are served hints first,
// then autoplay, then reviews.
func TestReviewWaitsBehindAutoplay(t *testing.T) {
	var q requestQueue
	r, a, h := &request{}, &request{}, &request{}
	q.push(Review, r)
	q.push(Autoplay, a)
	q.push(Hint, h)
	if got, _ := q.pop(false); got != h {
		t.Fatal("the hint is not first")
	}
	if got, _ := q.pop(false); got != a {
		t.Fatal("the autoplay is not next")
	}
	if got, ok := q.pop(false); ok {
		t.Fatalf("a review was taken where reviews are capped: %v", got == r)
	}
	if got, _ := q.pop(true); got != r {
		t.Fatal("the review is not last")
	}
}

// TestReviewsLeaveWorkersFree: however many evaluations wait, at most
// half the workers (at least one) run them.
func TestReviewsLeaveWorkersFree(t *testing.T) {
	p := newTestPool(t, 0)
	board := mustParse(t, "2 4 8 16/4 8 16 32/0 2 0 4/0 0 2 0")
	var wg sync.WaitGroup
	for range 2 * len(p.workers) {
		wg.Go(func() {
			if _, err := p.Evaluate(context.Background(), board, 6); err != nil {
				t.Error(err)
			}
		})
	}
	done := make(chan struct{}, 1)
	go func() { wg.Wait(); done <- struct{}{} }()
	most := 0
	for {
		p.mu.Lock()
		running := 0
		for _, w := range p.workers {
			if w.busy && w.prio == Review {
				running++
			}
		}
		p.mu.Unlock()
		most = max(most, running)
		select {
		case <-done:
			if want := max(1, len(p.workers)/2); most > want || most == 0 {
				t.Errorf("%d workers evaluated at once of %d; want at most %d", most, len(p.workers), want)
			}
			return
		case <-time.After(time.Millisecond):
		}
	}
}
