package watch

import (
	"testing"

	"github.com/ssh2048/ssh2048/game"
)

// TestChangeOf: what a spectator is told of, from one snapshot of a
// game to the next, the first that applies.
func TestChangeOf(t *testing.T) {
	base := game.Snapshot{GameID: 7, Player: "di", Size: 4, Status: game.Live, Moves: 10}
	with := func(f func(*game.Snapshot)) game.Snapshot { s := base; f(&s); return s }
	for _, tt := range []struct {
		name string
		prev game.Snapshot
		had  bool
		snap game.Snapshot
		want Change
	}{
		{"a move", base, true, with(func(s *game.Snapshot) { s.Moves = 11 }), NoChange},
		{"the first", game.Snapshot{}, false, base, NoChange},
		{"won", base, true, with(func(s *game.Snapshot) { s.Won = true }), Won},
		{"won before watching", game.Snapshot{}, false, with(func(s *game.Snapshot) { s.Won = true }), NoChange},
		{"taken over", base, true, with(func(s *game.Snapshot) { s.TakenOver = 1 }), TakenOver},
		{"taken over as it ends", base, true, with(func(s *game.Snapshot) { s.TakenOver, s.Status = 1, game.Ended }), TakenOver},
		{"left", base, true, with(func(s *game.Snapshot) { s.Status = game.Left }), Left},
		{"left before watching", game.Snapshot{}, false, with(func(s *game.Snapshot) { s.Status = game.Left }), Left},
		{"still left", with(func(s *game.Snapshot) { s.Status = game.Left }), true, with(func(s *game.Snapshot) { s.Status = game.Left }), NoChange},
		{"back", with(func(s *game.Snapshot) { s.Status = game.Left }), true, base, Back},
		{"over", base, true, with(func(s *game.Snapshot) { s.Status = game.Ended }), Ended},
		{"over and won", base, true, with(func(s *game.Snapshot) { s.Status, s.Won = game.Ended, true }), Ended},
	} {
		if got := ChangeOf(tt.prev, tt.had, tt.snap); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
