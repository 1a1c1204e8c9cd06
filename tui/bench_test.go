package tui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// BenchmarkView measures one frame of a game in progress: View runs after
// every message of every session, so it sits in each keystroke's path.
func BenchmarkView(b *testing.B) {
	for _, tt := range []struct {
		size, width, height int
		profile             colorprofile.Profile
	}{
		{4, 80, 24, colorprofile.TrueColor},
		{8, 80, 24, colorprofile.TrueColor},
		{4, 120, 40, colorprofile.TrueColor}, // block digits and the side panel
		{4, 200, 60, colorprofile.TrueColor},
		{4, 80, 24, colorprofile.ASCII},
	} {
		b.Run(fmt.Sprintf("%dx%d-%dx%d-%s", tt.size, tt.size, tt.width, tt.height, tt.profile), func(b *testing.B) {
			t := &testing.T{}
			st := newFakeStore()
			st.put(8, 3, repeat([]engine.Direction{engine.Left, engine.Up, engine.Right, engine.Down}, 30))
			st.put(4, 11, loadMoves(t, "win-4x4-seed11.moves")[:600])
			h := newHarness(t, Options{Store: st, Size: tt.size, Profile: tt.profile}, tt.width, tt.height)
			if h.m.screen != screenGame {
				b.Fatalf("benchmark game is not in progress: screen %d", h.m.screen)
			}
			h.m.View() // warm the tile cache, as the first frame does
			b.ReportAllocs()
			for b.Loop() {
				h.m.View()
			}
		})
	}
}

// BenchmarkMove is a key press through Update (with a no-op store) and the
// frame after it.
func BenchmarkMove(b *testing.B) {
	t := &testing.T{}
	h := newHarness(t, Options{Store: NewGuestStore(nil, func() uint64 { return 1 })}, 80, 24)
	keys := []tea.KeyPressMsg{tuitest.KeyPress("left"), tuitest.KeyPress("up"), tuitest.KeyPress("right"), tuitest.KeyPress("down")}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		h.m.Update(keys[i%4])
		h.m.View()
		i++
		if h.m.screen != screenGame {
			h.m.newGame()
		}
	}
}
