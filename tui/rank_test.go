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
// most once every rankEvery, and the last score's rank is still read.
func TestRankReadsSpacedOut(t *testing.T) {
	rankEvery = 200 * time.Millisecond
	t.Cleanup(func() { rankEvery = 0 })
	h := newHarness(t, Options{}, 80, 24)
	reads := func() int { return h.store.count("standings") }
	start := time.Now()
	before := reads()
	scoring := 0
	for i := 0; scoring < 6 && i < 400; i++ {
		h.press([]string{"left", "up", "right", "down"}[i%4])
		if h.m.lastGain > 0 && h.m.game.Moves() > 1 {
			scoring++
		}
	}
	if scoring < 6 {
		t.Fatal("too few scoring moves")
	}
	// The harness runs each read's command before the next key: a read
	// that waits its turn holds the keys, so the reads are spaced in time.
	n := reads() - before
	if took := time.Since(start); took < time.Duration(n-1)*rankEvery {
		t.Errorf("%d reads in %v: closer than one every %v", n, took, rankEvery)
	}
	if n == 0 {
		t.Error("no read of the rank")
	}
}
