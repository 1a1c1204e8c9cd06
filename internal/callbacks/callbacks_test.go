package callbacks_test

import (
	"slices"
	"testing"

	"github.com/ssh2048/ssh2048/internal/callbacks"
)

// TestSet: each callback added is called until it is removed, and one
// that removes itself (or adds another) while the set is called does not
// deadlock; the one it adds is called from the next call on.
func TestSet(t *testing.T) {
	var s callbacks.Set[func() string]
	each := func() []string {
		var got []string
		s.Each(func(fn func() string) { got = append(got, fn()) })
		slices.Sort(got)
		return got
	}
	if got := each(); len(got) != 0 {
		t.Fatalf("an empty set called %v", got)
	}
	removeA := s.Add(func() string { return "a" })
	var removeB func()
	removeB = s.Add(func() string {
		removeB()
		s.Add(func() string { return "c" })
		return "b"
	})
	if got, want := each(), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Fatalf("first call: %v, want %v", got, want)
	}
	removeA()
	if got, want := each(), []string{"c"}; !slices.Equal(got, want) {
		t.Fatalf("after a was removed and b removed itself: %v, want %v", got, want)
	}
}
