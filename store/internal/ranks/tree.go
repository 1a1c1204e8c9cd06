package ranks

import "sort"

// Key is where a player's best stands on a board: the leaderboard's order
// is higher score first, then whoever reached that score first, then the
// older game (the stores' rankOrder, column for column). Game ids are
// unique, so no two keys of a board are equal.
type Key struct {
	Score   int
	Reached int64 // unix µs
	Game    int64
}

// ahead says whether a ranks before b.
func (a Key) ahead(b Key) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Reached != b.Reached {
		return a.Reached < b.Reached
	}
	return a.Game < b.Game
}

// blockSize is how many keys a block of a tree holds after a split; it
// splits at twice that.
const blockSize = 128

// tree is an order-statistics structure of keys: sorted blocks of keys,
// and a Fenwick tree of the blocks' lengths, so that the keys ahead of a
// key are the lengths of the blocks before its own (a prefix sum, in
// O(log n)) and its place in its block (a binary search). Inserting and
// removing move at most a block's keys and update the prefix sums; a
// block that splits or empties rebuilds them. Everything is a loop over
// flat slices: no recursion and no allocation but a block's.
type tree struct {
	blocks [][]Key
	fen    []int // Fenwick tree of len(blocks[i]), 1-based
	n      int
}

// locate is the first block whose last key is not ahead of k: every key
// of the blocks before it is ahead of k, and k, if anywhere, is in it.
func (t *tree) locate(k Key) int {
	return sort.Search(len(t.blocks), func(i int) bool {
		b := t.blocks[i]
		return !b[len(b)-1].ahead(k)
	})
}

// place is where k is, or would go, in block b.
func place(b []Key, k Key) int {
	return sort.Search(len(b), func(i int) bool { return !b[i].ahead(k) })
}

func (t *tree) insert(k Key) {
	t.n++
	if len(t.blocks) == 0 {
		t.blocks = [][]Key{{k}}
		t.rebuild()
		return
	}
	i := min(t.locate(k), len(t.blocks)-1)
	b := t.blocks[i]
	j := place(b, k)
	b = append(b, Key{})
	copy(b[j+1:], b[j:])
	b[j] = k
	t.blocks[i] = b
	if len(b) < 2*blockSize {
		t.add(i, 1)
		return
	}
	hi := append([]Key(nil), b[blockSize:]...)
	t.blocks[i] = b[:blockSize:blockSize]
	t.blocks = append(t.blocks, nil)
	copy(t.blocks[i+2:], t.blocks[i+1:])
	t.blocks[i+1] = hi
	t.rebuild()
}

// remove takes k out; it must be there.
func (t *tree) remove(k Key) {
	i := t.locate(k)
	if i == len(t.blocks) {
		return
	}
	b := t.blocks[i]
	j := place(b, k)
	if j == len(b) || b[j] != k {
		return
	}
	t.n--
	t.blocks[i] = append(b[:j], b[j+1:]...)
	if len(t.blocks[i]) > 0 {
		t.add(i, -1)
		return
	}
	t.blocks = append(t.blocks[:i], t.blocks[i+1:]...)
	t.rebuild()
}

// countAhead is the number of keys ahead of k.
func (t *tree) countAhead(k Key) int {
	i := t.locate(k)
	if i == len(t.blocks) {
		return t.n
	}
	c := place(t.blocks[i], k)
	for j := i; j > 0; j -= j & -j {
		c += t.fen[j]
	}
	return c
}

func (t *tree) len() int { return t.n }

// add adds d to block i's length in the prefix sums.
func (t *tree) add(i, d int) {
	for j := i + 1; j < len(t.fen); j += j & -j {
		t.fen[j] += d
	}
}

// rebuild makes the prefix sums again from the blocks' lengths.
func (t *tree) rebuild() {
	t.fen = make([]int, len(t.blocks)+1)
	for i, b := range t.blocks {
		t.fen[i+1] += len(b)
		if p := i + 1 + (i+1)&-(i+1); p < len(t.fen) {
			t.fen[p] += t.fen[i+1]
		}
	}
}
