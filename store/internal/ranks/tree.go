package ranks

import "math/rand/v2"

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

// tree is an order-statistics treap of keys: each node knows the size of
// its subtree, so counting the keys ahead of one is a walk from the root,
// as inserting and deleting are.
type tree struct {
	root *node
}

type node struct {
	key         Key
	prio        uint64
	size        int
	left, right *node
}

func size(n *node) int {
	if n == nil {
		return 0
	}
	return n.size
}

func (n *node) fix() { n.size = 1 + size(n.left) + size(n.right) }

// split cuts n into the keys ahead of k and the others.
func split(n *node, k Key) (ahead, rest *node) {
	if n == nil {
		return nil, nil
	}
	if n.key.ahead(k) {
		n.right, rest = split(n.right, k)
		n.fix()
		return n, rest
	}
	ahead, n.left = split(n.left, k)
	n.fix()
	return ahead, n
}

// merge joins a and b, every key of a ahead of every key of b.
func merge(a, b *node) *node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		a.right = merge(a.right, b)
		a.fix()
		return a
	default:
		b.left = merge(a, b.left)
		b.fix()
		return b
	}
}

func (t *tree) insert(k Key) {
	a, b := split(t.root, k)
	t.root = merge(merge(a, &node{key: k, prio: rand.Uint64(), size: 1}), b)
}

// remove takes k out; it must be there.
func (t *tree) remove(k Key) {
	a, b := split(t.root, k)
	// b starts with k: drop its first node.
	b = dropFirst(b)
	t.root = merge(a, b)
}

func dropFirst(n *node) *node {
	if n.left == nil {
		return n.right
	}
	n.left = dropFirst(n.left)
	n.fix()
	return n
}

// countAhead is the number of keys ahead of k.
func (t *tree) countAhead(k Key) int {
	c := 0
	for n := t.root; n != nil; {
		if n.key.ahead(k) {
			c += size(n.left) + 1
			n = n.right
		} else {
			n = n.left
		}
	}
	return c
}

func (t *tree) len() int { return size(t.root) }
