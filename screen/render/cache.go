package render

import "sync"

// table is a map shared by every session's renderer: the styles, SGR
// sequences and transitions views use, which settle within the first
// frames. It holds at most max entries; past that, add keeps nothing.
type table[K comparable, V any] struct {
	max int
	mu  sync.RWMutex
	m   map[K]V
}

func (t *table[K, V]) get(k K) (V, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	v, ok := t.m[k]
	return v, ok
}

// add stores v for k unless k has a value already, and returns the value
// k has now (v if the table is full).
func (t *table[K, V]) add(k K, v V) V {
	t.mu.Lock()
	defer t.mu.Unlock()
	if have, ok := t.m[k]; ok {
		return have
	}
	if t.m == nil {
		t.m = make(map[K]V)
	}
	if len(t.m) < t.max {
		t.m[k] = v
	}
	return v
}
