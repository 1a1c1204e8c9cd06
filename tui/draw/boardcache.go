package draw

import (
	"sync"

	"github.com/ssh2048/ssh2048/engine"
)

// Every session with the same styles, tile size and board size draws the
// same tiles: their renderings are made once, for all of them, rather than
// by each session (lipgloss renders them, and a set kept by every session
// was memory that grew with the players connected; the commit that
// brought this in has the figures). A shared cache has all its tiles
// drawn when it is made, so that sessions only read it.

type boardKey struct {
	styles *Styles
	t      Tier
	n      int
}

var boardCaches = struct {
	sync.Mutex
	m map[boardKey]*BoardCache
}{m: make(map[boardKey]*BoardCache)}

// SharedBoardCache returns the board cache for styles s, tier t and size
// n, every tile drawn. Styles come from SharedStyles (a few per colour
// profile), so the caches are bounded by the tiers and sizes.
func SharedBoardCache(s *Styles, t Tier, n int) *BoardCache {
	key := boardKey{s, t, n}
	boardCaches.Lock()
	defer boardCaches.Unlock()
	if c := boardCaches.m[key]; c != nil {
		return c
	}
	c := NewBoardCache(s, t, n)
	for exp := range engine.MaxExponent + 1 {
		for _, mk := range []Mark{MarkNone, MarkNew, MarkMerged} {
			c.Tile(uint8(exp), mk)
		}
	}
	boardCaches.m[key] = c
	return c
}
