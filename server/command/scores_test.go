package command

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

func TestScoresTableAlignsWideNames(t *testing.T) {
	ended := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	entries := []wire.ScoreEntry{
		{Rank: 1, Name: "ann", Score: 20480, MaxTile: 2048, Moves: 1000, Ended: &ended},
		{Rank: 2, Name: "日本語の名前です", Score: 512, MaxTile: 64, Moves: 90},
		{Rank: 3, Name: "emoji 🎮🎮", Score: 4, MaxTile: 4, Moves: 2},
		{Rank: 4, Name: strings.Repeat("界", 30), Score: 2, MaxTile: 2, Moves: 1},
	}
	lines := strings.Split(strings.TrimSuffix(scoresTable(entries, 4, store.KindHuman, false, "no games yet"), "\n"), "\n")
	if len(lines) != 2+len(entries) {
		t.Fatalf("table:\n%s", strings.Join(lines, "\n"))
	}
	// Every row's last column starts where its heading does.
	col := strings.Index(lines[1], "ENDED")
	for _, l := range lines[2:] {
		ended := "playing"
		if !strings.HasSuffix(l, ended) {
			ended = "2026-11-21 12:00"
		}
		if start := ansi.StringWidth(strings.TrimSuffix(l, ended)); start != col {
			t.Errorf("row %q: ENDED column at cell %d, heading at %d", l, start, col)
		}
	}
	if !strings.Contains(lines[2], "2026-11-21 12:00") || !strings.Contains(lines[3], "playing") {
		t.Errorf("ended column:\n%s", strings.Join(lines, "\n"))
	}
}
