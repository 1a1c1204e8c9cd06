package tui

import (
	"os"
	"testing"
	"time"
)

// TestMain reads the rank after every scoring move without a pause, as the
// tests of the header expect; TestRankReadsSpacedOut puts the pause back.
func TestMain(m *testing.M) {
	rankEvery = 0
	os.Exit(m.Run())
}

// TestRankReadsSpacedOut: however fast moves score, the rank is read at
// most once every rankEvery: on the first scoring move after it.
func TestRankReadsSpacedOut(t *testing.T) {
	rankEvery = 300 * time.Millisecond
	t.Cleanup(func() { rankEvery = 0 })
	h := newHarness(t, Options{}, 80, 24)
	reads := func() int { return h.store.count("standings") }
	score := func() {
		t.Helper()
		for i := 0; i < 400; i++ {
			moves := h.m.game.Moves()
			h.press([]string{"left", "up", "right", "down"}[i%4])
			if h.m.game.Moves() > moves && h.m.lastGain > 0 {
				return
			}
		}
		t.Fatal("no scoring move")
	}
	score() // the first read, if the opening moves scored none
	before := reads()
	start := time.Now()
	for range 5 {
		score()
	}
	if n := reads() - before; time.Since(start) < rankEvery && n > 1 {
		t.Errorf("5 scoring moves within %v read the rank %d times, want at most 1", rankEvery, n)
	}
	time.Sleep(rankEvery)
	before = reads()
	score()
	if reads() != before+1 {
		t.Errorf("a scoring move %v after the last read did not read the rank", rankEvery)
	}
}
