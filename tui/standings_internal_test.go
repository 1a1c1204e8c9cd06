package tui

import (
	"testing"

	"github.com/ssh2048/ssh2048/store"
)

// TestStandingsTagLookAlikes: on the game screen's leaderboard, names that
// look like another on screen get their player's tag; the player's own row,
// shown in the top and again below it, is not its own look-alike.
func TestStandingsTagLookAlikes(t *testing.T) {
	fp := func(id string) string { return "SHA256:" + id + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" }
	rows := []store.Entry{
		{Rank: 1, PlayerID: 1, Name: "swap1", Fingerprint: fp("AAAAAAAA")},
		{Rank: 2, PlayerID: 2, Name: "carol", Fingerprint: fp("BBBBBBBB")},
		{Rank: 3, PlayerID: 3, Name: "SWAPL", Fingerprint: fp("CCCCCCCC")},
		{Rank: 4, PlayerID: 4, Name: "dave", Fingerprint: fp("DDDDDDDD")},
		{Rank: 2, PlayerID: 2, Name: "carol", Fingerprint: fp("BBBBBBBB")}, // "me", again
	}
	got := standingsOf(rows)
	want := []struct{ name, tag string }{
		{"swap1", "#AAAAAA"}, {"carol", ""}, {"SWAPL", "#CCCCCC"}, {"dave", ""}, {"carol", ""},
	}
	for i, w := range want {
		if got[i].Player != w.name || got[i].Tag != w.tag {
			t.Errorf("row %d: %q %q, want %q %q", i, got[i].Player, got[i].Tag, w.name, w.tag)
		}
	}
}
