// Package callbacks keeps the functions a source calls when something
// happens (a new ban, an account merged away, a bus that listens again),
// each added with the function that removes it. The set is called
// outside its lock, so a callback may add or remove callbacks, its own
// included, without a deadlock.
package callbacks

import "sync"

// Set is a set of callbacks of type F. The zero value is an empty set,
// ready to use; a Set must not be copied after first use.
type Set[F any] struct {
	mu   sync.Mutex
	next int
	fns  map[int]F
}

// Add puts fn in the set until remove is called.
func (s *Set[F]) Add(fn F) (remove func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fns == nil {
		s.fns = make(map[int]F)
	}
	id := s.next
	s.next++
	s.fns[id] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.fns, id)
	}
}

// Each has call called with every callback in the set as it is now, in
// no particular order.
func (s *Set[F]) Each(call func(F)) {
	s.mu.Lock()
	fns := make([]F, 0, len(s.fns))
	for _, fn := range s.fns {
		fns = append(fns, fn)
	}
	s.mu.Unlock()
	for _, fn := range fns {
		call(fn)
	}
}
