package tui

import "testing"

// BenchmarkRaceView is one frame of the race screen at 80×24: the
// player's board and three opponents' live boards, as every racer draws
// it after each move of any racer.
func BenchmarkRaceView(b *testing.B) {
	m, _ := runningRace(b, "ann", "bob", "cat", "dan")
	m.View()
	b.ReportAllocs()
	for b.Loop() {
		m.drawn = "" // as after a move: drawn again
		m.View()
	}
}
