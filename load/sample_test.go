package load

import (
	"math/rand/v2"
	"testing"
)

func TestSampleKeepsAllWhileThereIsRoom(t *testing.T) {
	s := newSample[int](10)
	rng := rand.New(rand.NewPCG(1, 1))
	for v := range 10 {
		s.add(v, rng)
	}
	if s.n != 10 || s.sum != 45 || s.max != 9 || len(s.vals) != 10 {
		t.Fatalf("%+v", s)
	}
	for i, v := range s.vals {
		if v != i {
			t.Fatalf("vals %v", s.vals)
		}
	}
}

// Past its room a sample stays that size, its totals stay exact, and what
// it keeps is a fair draw of everything added.
func TestSampleIsBoundedAndUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	total, kept := 0, 0
	for range 200 {
		s := newSample[int](10)
		for v := 1; v <= 1000; v++ {
			s.add(v, rng)
		}
		if s.n != 1000 || s.sum != 500500 || s.max != 1000 || len(s.vals) != 10 {
			t.Fatalf("n %d sum %d max %d kept %d", s.n, s.sum, s.max, len(s.vals))
		}
		for _, v := range s.vals {
			total += v
			kept++
		}
	}
	// Uniform over 1..1000: mean 500.5, standard error here about 6.5.
	if mean := float64(total) / float64(kept); mean < 470 || mean > 531 {
		t.Fatalf("mean of kept values %.1f, want about 500.5", mean)
	}
}

func TestSessionRoom(t *testing.T) {
	if got := sessionRoom(1); got != maxSamples {
		t.Errorf("1 session: %d", got)
	}
	if got := sessionRoom(MaxSessions); got*MaxSessions > maxSamples || got < 100 {
		t.Errorf("%d sessions: %d each", MaxSessions, got)
	}
}
