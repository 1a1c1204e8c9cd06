// Temporary: the race screens' copy of what tui/draw draws with, until they move to a
// package of their own and draw with tui/draw.

package tui

import (
	"sync"

	"github.com/ssh2048/ssh2048/engine"
)

// Every session with the same styles, tile size and board size draws the
// same tiles: their renderings are made once, for all of them, rather than
// by each session (lipgloss renders them; a session's set was about 2 KB,
// 8 MB at 4,000 players). A shared cache has all its tiles drawn when it
// is made, so that sessions only read it.

type boardKey struct {
	styles *Styles
	t      tier
	n      int
}

var boardCaches = struct {
	sync.Mutex
	m map[boardKey]*boardCache
}{m: make(map[boardKey]*boardCache)}

// sharedBoardCache returns the board cache for styles s, tier t and size
// n, every tile drawn. Styles come from sharedStyles (a few per colour
// profile), so the caches are bounded by the tiers and sizes.
func sharedBoardCache(s *Styles, t tier, n int) *boardCache {
	key := boardKey{s, t, n}
	boardCaches.Lock()
	defer boardCaches.Unlock()
	if c := boardCaches.m[key]; c != nil {
		return c
	}
	c := newBoardCache(s, t, n)
	for exp := range engine.MaxExponent + 1 {
		for _, mk := range []mark{markNone, markNew, markMerged} {
			c.tile(uint8(exp), mk)
		}
	}
	boardCaches.m[key] = c
	return c
}
