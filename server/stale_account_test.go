package server_test

import (
	"context"
	"strings"
	"testing"
)

// TestMergedKeysScreenMakesNoStrangersGame: a game screen left open on a
// key whose account then merged into another still names the account
// merged away; a new game it opens is refused (its account is gone), and
// never lands on the account made next. SQLite gave a new account the
// id of the account just deleted when it was the newest, and the open
// screen's next board became that stranger's game.
func TestMergedKeysScreenMakesNoStrangersGame(t *testing.T) {
	ts := startServer(t)
	bobKey, alphaKey := newKey(t), newKey(t)
	run(t, ts.dial(t, "bob", bobKey), "scores", "")
	alpha := openScreen(t, ts.dial(t, "alpha", alphaKey), "", 80, 24)
	alpha.waitText("alpha's game", "Moves 0")
	code := linkCodeOf(t, accountServer{ts, nil}, bobKey)
	if r := run(t, ts.dial(t, "alpha", alphaKey), "link "+code+" --merge", ""); r.code != 0 {
		t.Fatalf("alpha's key joins bob's account: %+v", r)
	}
	run(t, ts.dial(t, "carl", newKey(t)), "scores", "") // the account made next
	alpha.send("5")
	screen := alpha.waitUntil("the 5×5 board, or its refusal", func(s string) bool {
		return strings.Contains(s, "Could not open your 5×5 game") || strings.Contains(s, "2048 5×5")
	})
	if !strings.Contains(screen, "Could not open your 5×5 game") {
		t.Errorf("alpha's open screen, its account merged away, opened a 5×5 board:\n%s", screen)
	}
	carl, err := ts.store.FindPlayer(context.Background(), "carl")
	if err != nil {
		t.Fatal(err)
	}
	if games, err := ts.store.PlayerGames(context.Background(), carl.ID, 10); err != nil || len(games) != 0 {
		t.Fatalf("carl's games: %+v, %v; want none: alpha's open screen played on carl's account", games, err)
	}
	alpha.send("q")
	alpha.wait()
}
