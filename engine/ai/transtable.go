package ai

// transTable caches chance-node values by board, with the depth they were
// searched to. It is a preallocated open-addressing table rather than a Go
// map: no allocation and no rehashing in the search, and clearing it for the
// next search is one increment of a generation counter, because an entry of
// an older generation counts as empty.
//
// A transTable belongs to one Searcher and is not safe for concurrent use.
type transTable struct {
	entries []ttEntry
	mask    uint64
	gen     uint32 // current generation, 1..maxGeneration
}

type ttEntry struct {
	board uint64
	value float32
	meta  uint32 // generation<<8 | depth
}

const (
	ttBits        = 19 // 512 Ki entries of 16 bytes: 8 MiB per searcher
	ttProbes      = 4  // slots looked at per board before replacing one
	maxGeneration = 1<<24 - 1
)

func newTransTable() *transTable {
	return &transTable{entries: make([]ttEntry, 1<<ttBits), mask: 1<<ttBits - 1, gen: 1}
}

// reset forgets every entry, in O(1) except once every 16 million searches
// when the generation counter wraps and the table is zeroed.
func (t *transTable) reset() {
	t.gen++
	if t.gen > maxGeneration {
		clear(t.entries)
		t.gen = 1
	}
}

func (t *transTable) slot(board uint64) uint64 {
	return board * 0x9E3779B97F4A7C15 >> (64 - ttBits)
}

// lookup returns the value stored for board if it was searched at least
// depth deep in this generation; a shallower entry is no answer.
func (t *transTable) lookup(board uint64, depth int) (float32, bool) {
	i := t.slot(board)
	for k := uint64(0); k < ttProbes; k++ {
		e := &t.entries[(i+k)&t.mask]
		if e.board == board && e.meta>>8 == t.gen {
			if int(e.meta&0xFF) >= depth {
				return e.value, true
			}
			return 0, false
		}
	}
	return 0, false
}

// store records board's value at depth. It replaces, in order of preference,
// the board's own entry (unless that one is deeper), a stale slot, or the
// shallowest of the probed slots.
func (t *transTable) store(board uint64, depth int, value float32) {
	i := t.slot(board)
	meta := t.gen<<8 | uint32(depth)
	var victim *ttEntry
	for k := uint64(0); k < ttProbes; k++ {
		e := &t.entries[(i+k)&t.mask]
		if e.meta>>8 != t.gen {
			if victim == nil || victim.meta>>8 == t.gen {
				victim = e
			}
			continue
		}
		if e.board == board {
			if e.meta&0xFF <= uint32(depth) {
				e.value, e.meta = value, meta
			}
			return
		}
		if victim == nil || (victim.meta>>8 == t.gen && e.meta&0xFF < victim.meta&0xFF) {
			victim = e
		}
	}
	*victim = ttEntry{board: board, value: value, meta: meta}
}
