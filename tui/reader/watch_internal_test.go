package reader

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
)

// TestSpectatorNotices: what a spectator is told of each change of a
// game, snapshot by snapshot, the win included (a won game is slow to
// reach by playing): the lines said after the first snapshot's.
func TestSpectatorNotices(t *testing.T) {
	board, err := engine.NewBoard(4)
	if err != nil {
		t.Fatal(err)
	}
	base := game.Snapshot{GameID: 7, Player: "di", Size: 4, Board: board, Status: game.Live, Moves: 10, Score: 50, Watchers: 1}
	with := func(f func(*game.Snapshot)) game.Snapshot { s := base; f(&s); return s }
	tests := []struct {
		name  string
		snaps []game.Snapshot
		want  string
	}{
		{"watchers only", []game.Snapshot{base, with(func(s *game.Snapshot) { s.Watchers = 3 })}, ""},
		{"won", []game.Snapshot{base, with(func(s *game.Snapshot) { s.Moves, s.Score, s.Won = 12, 60, true })},
			"di made 2 moves meanwhile: 12 moves, score 60, 1 watching. b reads the board.\ndi made 2048! The game goes on.\n"},
		{"won before watching", []game.Snapshot{with(func(s *game.Snapshot) { s.Won = true })}, ""},
		{"taken over", []game.Snapshot{base, with(func(s *game.Snapshot) { s.TakenOver = 1 })}, "Taken over by another session of di; still watching.\n"},
		{"left", []game.Snapshot{base, with(func(s *game.Snapshot) { s.Status = game.Left })}, "di left; b reads the last board.\n"},
		{"already left", []game.Snapshot{with(func(s *game.Snapshot) { s.Status = game.Left })}, "di left; b reads the last board.\n"},
		{"back", []game.Snapshot{base, with(func(s *game.Snapshot) { s.Status = game.Left }), base}, "di left; b reads the last board.\ndi is back.\n"},
		{"over", []game.Snapshot{base, with(func(s *game.Snapshot) { s.Status, s.Score = game.Ended, 99 })}, "Game over: di scored 99.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpectator(ViewOptions{Context: context.Background(), Now: time.Now})
			s.apply(game.Snapshot{}, false, tt.snaps[0])
			first := string(s.AppendLines(nil))
			if !strings.HasPrefix(first, "Watching di's 4 by 4 game: ") {
				t.Errorf("the first snapshot is told %q", first)
			}
			for _, sn := range tt.snaps[1:] {
				s.apply(s.snap, s.have, sn)
			}
			if len(tt.snaps) == 1 {
				// What the first snapshot says past the game and its board.
				lines := strings.SplitAfter(first, "\r\n")
				first = strings.Join(lines[1+4:], "")
			} else {
				first = string(s.AppendLines(nil))
			}
			if got := strings.ReplaceAll(first, "\r\n", "\n"); got != tt.want {
				t.Errorf("said %q, want %q", got, tt.want)
			}
		})
	}
}
