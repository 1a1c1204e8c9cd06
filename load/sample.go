package load

import "math/rand/v2"

// maxSamples bounds the latencies and frame sizes a run keeps in memory,
// over all sessions: percentiles come from at most this many of each.
// Counts, sums and maxima stay exact.
const maxSamples = 4_000_000

// minSessionSamples is the least a session keeps: at MaxSessions the
// run still keeps no more than maxSamples.
const minSessionSamples = maxSamples / MaxSessions

// sample keeps every value added while there is room, then a uniform
// random sample of all of them (reservoir sampling), with the exact count,
// sum and maximum.
type sample[T int | int64] struct {
	vals []T
	room int // how many vals to keep at most
	n    int
	sum  T
	max  T
}

func newSample[T int | int64](room int) sample[T] { return sample[T]{room: room} }

func (s *sample[T]) add(v T, rng *rand.Rand) {
	s.n++
	s.sum += v
	if s.n == 1 || v > s.max {
		s.max = v
	}
	switch {
	case len(s.vals) < s.room:
		s.vals = append(s.vals, v)
	default:
		if j := rng.IntN(s.n); j < s.room {
			s.vals[j] = v
		}
	}
}

// sessionRoom is how many values of each kind one session keeps.
func sessionRoom(sessions int) int { return max(minSessionSamples, maxSamples/max(sessions, 1)) }
