//go:build linux

package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/store"
)

// steadyAI always suggests left: the AI's answer does not matter here,
// only that the player sees one.
type steadyAI struct{}

func (steadyAI) Hint(context.Context, engine.Board) (engine.Direction, error) {
	return engine.Left, nil
}

func (steadyAI) Autoplay(ctx context.Context, b engine.Board) (engine.Direction, error) {
	return steadyAI{}.Hint(ctx, b)
}

// TestHintAfterAFailedMarkIsNotShownOnARankedGame: the player asks for a
// hint on a ranked (human) game and says yes, and the store cannot mark
// the game assisted (the disk is full). The hint must not be shown: the
// game still ranks among human games, which a game the AI helped never
// does (README). The screen says the game could not be marked. The
// screen used to note the game as assisted before the store answered,
// and showed the hint, with "assisted" in its header.
func TestHintAfterAFailedMarkIsNotShownOnARankedGame(t *testing.T) {
	ts := startServer(t, func(c *server.Config) { c.Hinter = steadyAI{} })
	scr := openScreen(t, ts.dial(t, "ann", newKey(t)), "play", 100, 30)
	scr.waitText("the game screen", "Moves 0")
	// A few moves, so that the game is on the human leaderboard.
	for i := 0; !strings.Contains(scr.text(), "Moves 2"); i++ {
		scr.send([]string{"\x1b[D", "\x1b[A", "\x1b[C", "\x1b[B"}[i%4])
		time.Sleep(100 * time.Millisecond)
		if i > 40 {
			t.Fatalf("no two moves:\n%s", scr.text())
		}
	}

	scr.send("i")
	scr.waitText("the question", "Ask the AI?")
	room := diskFull(t)
	scr.send("y")
	// The store's answer (an error) and the AI's (a hint) both come
	// within a moment.
	time.Sleep(2 * time.Second)
	room()
	screen := scr.text()
	rows, err := ts.store.Leaderboard(context.Background(), 4, store.KindHuman, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(screen, "Could not mark the game as AI-assisted") {
		t.Errorf("the screen does not say the game could not be marked:\n%s", screen)
	}
	if strings.Contains(screen, "Hint:") && len(rows) == 1 {
		t.Fatalf("the AI's hint is shown, and the header says assisted (%v), on a game that the store could not mark assisted and still ranks on the human leaderboard (rank %d, score %d, game %d); the screen says nothing of the failure:\n%s",
			strings.Contains(screen, "assisted"), rows[0].Rank, rows[0].Score, rows[0].GameID, screen)
	}
}
