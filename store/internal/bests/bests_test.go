package bests

import (
	"errors"
	"slices"
	"testing"
)

// TestMarkedGamesPutBack: an offer that did not commit leaves its games
// marked; while one is under way a read still needs one; reads that come
// before an offer takes the games share it.
func TestMarkedGamesPutBack(t *testing.T) {
	var m Marked
	if o, _ := m.join(); o != nil {
		t.Fatal("an offer is needed with nothing marked")
	}
	m.Mark(1)
	m.Mark(2)
	m.Mark(1)
	first, lead := m.join()
	if !lead {
		t.Fatal("the first read does not lead an offer")
	}
	if o, lead := m.join(); o != first || lead {
		t.Fatal("a read before the offer took its games does not share it")
	}
	ids := m.take(first)
	slices.Sort(ids)
	if !slices.Equal(ids, []int64{1, 2}) {
		t.Fatalf("took %v, want [1 2]", ids)
	}
	second, lead := m.join()
	if second == first || !lead {
		t.Fatal("a read after the offer took its games shares it")
	}
	m.done(first, ids, errors.New("disk full"))
	<-first.done
	if again := m.take(second); len(again) != 2 {
		t.Fatalf("after a failed offer took %v, want both again", again)
	} else {
		m.done(second, again, nil)
	}
	if o, _ := m.join(); o != nil {
		t.Fatal("an offer is needed after a committed one")
	}
}

// TestOfferTakesOnce: a run that queues its write again (the group failed
// and its writes run one by one) offers the same games; a failed run
// leaves them marked for the next Offer, which takes them.
func TestOfferTakesOnce(t *testing.T) {
	var m Marked
	m.Mark(5)
	err := m.Offer(t.Context(), func(take func() []int64) error {
		first := take()
		m.Mark(6) // a move after the offer took the marks
		if again := take(); !slices.Equal(first, again) {
			t.Errorf("take again gave %v, the first time %v", again, first)
		}
		return errors.New("group failed")
	})
	if err == nil {
		t.Fatal("a failed offer reported success")
	}
	var got []int64
	if err := m.Offer(t.Context(), func(take func() []int64) error { got = take(); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, []int64{5, 6}) {
		t.Fatalf("the next offer took %v, want [5 6]", got)
	}
	if err := m.Offer(t.Context(), func(func() []int64) error { t.Fatal("an offer ran with nothing marked"); return nil }); err != nil {
		t.Fatal(err)
	}
}
