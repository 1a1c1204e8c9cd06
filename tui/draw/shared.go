package draw

import "sync"

// SharedDrawings are drawings made once for every session that asks for
// the same (the key K says what a drawing depends on), up to a bound:
// keys come from what clients pick (window sizes, the games they watch),
// and when the map is full it is emptied and fills again with what is
// asked for now.
type SharedDrawings[K comparable, V any] struct {
	mu  sync.Mutex
	m   map[K]V
	Max int
}

func NewSharedDrawings[K comparable, V any](max int) *SharedDrawings[K, V] {
	return &SharedDrawings[K, V]{m: make(map[K]V), Max: max}
}

// Get returns the drawing of k, drawing it with draw if no one has. Two
// sessions may draw the same at once; the drawing is the same.
func (d *SharedDrawings[K, V]) Get(k K, draw func() V) V {
	d.mu.Lock()
	v, ok := d.m[k]
	d.mu.Unlock()
	if ok {
		return v
	}
	v = draw()
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.m) >= d.Max {
		clear(d.m)
	}
	d.m[k] = v
	return v
}

// Len is how many drawings are kept.
func (d *SharedDrawings[K, V]) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.m)
}

// Forget empties the map (for benchmarks that want a drawing no one has
// made).
func (d *SharedDrawings[K, V]) Forget() {
	d.mu.Lock()
	defer d.mu.Unlock()
	clear(d.m)
}
