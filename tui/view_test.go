package tui

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// standings is a leaderboard of n players where ann is at rank annRank.
func standings(n, annRank int) ([]Standing, *Standing) {
	var top []Standing
	var me *Standing
	for i := 1; i <= n; i++ {
		st := Standing{Rank: i, Player: fmt.Sprintf("player%02d", i), Score: 50000 - i*1000, MaxTile: 4096 >> (i / 4)}
		if i == 5 {
			st.Player = "Zoë 二〇四八 with a very long name"
		}
		if i == annRank {
			st.Player = "ann"
			me = &st
		}
		top = append(top, st)
	}
	return top, me
}

func TestGoldenFrames(t *testing.T) {
	win4 := loadMoves(t, "win-4x4-seed11.moves")
	win3 := loadMoves(t, "win-3x3-seed7.moves")
	tests := []struct {
		name          string
		size          int
		width, height int
		opts          Options
		prepare       func(st *fakeStore) // before the session starts
		setup         func(h *harness)
	}{
		{name: "game-4x4-80x24", size: 4, width: 80, height: 24, setup: func(h *harness) { h.press("left", "up", "right", "down") }},
		{name: "game-4x4-120x40", size: 4, width: 120, height: 40, setup: func(h *harness) { h.press("left", "up") }},
		{name: "game-4x4-40x20", size: 4, width: 40, height: 20},
		// Large windows: block digits, and the panel beside the board.
		{name: "game-4x4-120x40-panel", size: 4, width: 120, height: 40,
			prepare: func(st *fakeStore) { st.top, st.me = standings(30, 12) },
			setup:   func(h *harness) { h.press("left", "up") }},
		{name: "game-4x4-200x60", size: 4, width: 200, height: 60,
			prepare: func(st *fakeStore) {
				st.put(4, 11, win4[:300])
				st.top, st.me = standings(30, 3)
			}},
		{name: "game-8x8-80x24", size: 8, width: 80, height: 24, prepare: func(st *fakeStore) {
			st.put(8, 3, repeat([]engine.Direction{engine.Left, engine.Up, engine.Right, engine.Down}, 100))
		}},
		{name: "game-3x3-20x6-too-small", size: 3, width: 20, height: 6},
		{name: "game-4x4-late", size: 4, width: 80, height: 24, prepare: func(st *fakeStore) { st.put(4, 11, win4[:900]) }},
		{name: "won-4x4", size: 4, width: 80, height: 24,
			prepare: func(st *fakeStore) { st.put(4, 11, win4[:len(win4)-1]) },
			setup:   func(h *harness) { h.press(win4[len(win4)-1].String()) },
		},
		{name: "over-3x3", size: 3, width: 80, height: 24, setup: func(h *harness) {
			h.store.top, h.store.me = standings(12, 12)
			playUntilOver(h)
		}},
		{name: "confirm-new", size: 4, width: 80, height: 24, setup: func(h *harness) { h.press("n") }},
		{name: "leaderboard-me-below-top", size: 4, width: 80, height: 24, setup: func(h *harness) {
			h.store.top, h.store.me = standings(30, 27)
			h.press("tab")
		}},
		{name: "leaderboard-me-in-top", size: 4, width: 80, height: 24, setup: func(h *harness) {
			h.store.top, h.store.me = standings(30, 3)
			h.press("tab")
		}},
		{name: "help", size: 4, width: 80, height: 24, opts: Options{Hinter: &fakeHinter{}}, setup: func(h *harness) { h.press("?") }},
		{name: "guest", size: 4, width: 80, height: 24, opts: Options{Guest: true, Store: NewGuestStore(nil, func() uint64 { return 5 })}},
		{name: "confirm-ai", size: 4, width: 80, height: 24, opts: Options{Hinter: &fakeHinter{}}, setup: func(h *harness) { h.press("i") }},
		{name: "won-3x3", size: 3, width: 80, height: 24,
			prepare: func(st *fakeStore) { st.put(3, 7, win3[:len(win3)-1]) },
			setup:   func(h *harness) { h.press(win3[len(win3)-1].String()) },
		},
		// The smallest windows each screen must fit whole: 40×12, where
		// 3×3 fits, and 26×11, the smallest window 3×3 fits.
		{name: "game-3x3-40x12", size: 3, width: 40, height: 12, opts: Options{Hinter: &fakeHinter{}}, setup: func(h *harness) { h.press("left", "up") }},
		{name: "confirm-new-40x12", size: 3, width: 40, height: 12, setup: func(h *harness) { h.press("n") }},
		{name: "confirm-ai-40x12", size: 3, width: 40, height: 12, opts: Options{Hinter: &fakeHinter{}}, setup: func(h *harness) { h.press("i") }},
		{name: "over-3x3-40x12", size: 3, width: 40, height: 12, setup: func(h *harness) {
			h.store.top, h.store.me = standings(12, 12)
			playUntilOver(h)
		}},
		{name: "won-3x3-40x12", size: 3, width: 40, height: 12,
			prepare: func(st *fakeStore) { st.put(3, 7, win3[:len(win3)-1]) },
			setup:   func(h *harness) { h.press(win3[len(win3)-1].String()) },
		},
		{name: "help-40x12", size: 3, width: 40, height: 12, opts: Options{Hinter: &fakeHinter{}}, setup: func(h *harness) { h.press("?") }},
		{name: "help-26x11", size: 3, width: 26, height: 11, opts: Options{Hinter: &fakeHinter{}}, setup: func(h *harness) { h.press("?") }},
		{name: "leaderboard-40x12", size: 3, width: 40, height: 12, setup: func(h *harness) {
			h.store.top, h.store.me = standings(30, 27)
			h.press("tab")
		}},
		{name: "leaderboard-26x11", size: 3, width: 26, height: 11, setup: func(h *harness) {
			h.store.top, h.store.me = standings(30, 3)
			h.press("tab")
		}},
		{name: "guest-40x12", size: 3, width: 40, height: 12, opts: Options{Guest: true, Store: NewGuestStore(nil, func() uint64 { return 5 })}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Size = tt.size
			if tt.prepare != nil {
				st := newFakeStore()
				tt.prepare(st)
				opts.Store = st
			}
			h := newHarness(t, opts, tt.width, tt.height)
			if tt.setup != nil {
				tt.setup(h)
			}
			got := h.frame()
			golden(t, tt.name, got)
			tuitest.AssertFits(t, got, tt.width, tt.height)
		})
	}
}

func repeat(dirs []engine.Direction, n int) []engine.Direction {
	var out []engine.Direction
	for range n {
		out = append(out, dirs...)
	}
	return out
}

// playUntilOver presses left, down, right, up in turn until the game ends.
func playUntilOver(h *harness) {
	h.t.Helper()
	for i := 0; h.m.screen != screenOver; i++ {
		if i > 10000 {
			h.t.Fatal("game never ended")
		}
		h.press([]string{"left", "down", "right", "up"}[i%4])
	}
}

func TestEverySizeFits80x24(t *testing.T) {
	for size := engine.MinSize; size <= engine.MaxSize; size++ {
		for _, p := range []colorprofile.Profile{colorprofile.ASCII, colorprofile.TrueColor} {
			t.Run(fmt.Sprintf("%dx%d-%s", size, size, p), func(t *testing.T) {
				h := newHarness(t, Options{Size: size, Profile: p}, 80, 24)
				h.press("left", "up", "left")
				f := h.frame()
				if strings.Contains(f, "too small") {
					t.Fatalf("80×24 too small for %d×%d:\n%s", size, size, f)
				}
				tuitest.AssertFits(t, f, 80, 24)
				if !strings.Contains(f, "Score") || !strings.Contains(f, "quit") {
					t.Errorf("header or help missing:\n%s", f)
				}
			})
		}
	}
}

// Sessions share their help lines (drawn once for a key map, styles and
// width), and the widths clients pick cannot grow the cache past its bound.
func TestHelpLinesShared(t *testing.T) {
	a := newHarness(t, Options{}, 80, 24)
	b := newHarness(t, Options{Player: "bob"}, 80, 24)
	la, lb := a.m.helpLine(), b.m.helpLine()
	if la != lb || la.S == "" {
		t.Fatalf("help lines of two sessions at 80 columns: %q and %q", la.S, lb.S)
	}
	if unsafe.StringData(la.S) != unsafe.StringData(lb.S) {
		t.Error("the second session drew a help line of its own")
	}
	narrow := newHarness(t, Options{}, 30, 24).m.helpLine()
	if narrow.W > 30 || narrow.S == la.S {
		t.Errorf("help line at 30 columns: %q (%d wide)", narrow.S, narrow.W)
	}

	own := &draw.Styles{} // keys of no session's
	drawn := 0
	for w := range 2 * helpLines.Max {
		helpLines.Get(helpLineKey{a.m.keys, own, w}, func() draw.Line { drawn++; return draw.Line{S: "x", W: 1} })
		if n := helpLines.Len(); n > helpLines.Max {
			t.Fatalf("after %d widths %d lines are kept, past the bound of %d", w+1, n, helpLines.Max)
		}
	}
	if drawn != 2*helpLines.Max {
		t.Errorf("%d widths drew %d lines", 2*helpLines.Max, drawn)
	}
}
