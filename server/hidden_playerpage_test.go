package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// TestHiddenGameOffThePlayerPage: `hide GAME` takes a game off "the web
// pages and their JSON" (docs/moderation.md); only verify, export,
// replay and the player's own history keep it. Its player's public page,
// /player/ID and /api/player/ID, used to list it still among the
// player's recent games, with its score and a link to its replay.
func TestHiddenGameOffThePlayerPage(t *testing.T) {
	md := startModerated(t)
	rng := rand.New(rand.NewPCG(4, 4))
	bobKey := newKey(t)
	bob := startBot(t, md.dial(t, "bob", bobKey), "")
	ended := playToEnd(t, bob, bob.mustRead(), rng)
	bob.finish()
	viewer := md.dial(t, "viewer", newKey(t))
	rows := scoresJSON[wire.ScoreEntry](t, viewer, "scores --json --bots")
	if len(rows) != 1 || rows[0].Score != ended.Score {
		t.Fatalf("bot board: %+v", rows)
	}
	p, err := md.games.Identify(context.Background(), gossh.FingerprintSHA256(bobKey.PublicKey()), bobKey.PublicKey().Type(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	id, playerID := rows[0].GameID, p.ID
	md.adminRun(t, fmt.Sprintf(`hide %d --reason "played by a script"`, id), wire.ExitOK)

	var api struct {
		Recent []struct {
			GameID int64 `json:"game_id"`
			Score  int   `json:"score"`
		} `json:"recent"`
	}
	body := md.page(t, fmt.Sprintf("/api/player/%d", playerID))
	if err := json.Unmarshal([]byte(body), &api); err != nil {
		t.Fatalf("/api/player: %v %q", err, body)
	}
	for _, g := range api.Recent {
		if g.GameID == id {
			t.Errorf("/api/player/%d lists hidden game %d (score %d) among the recent games: %s", playerID, id, g.Score, body)
		}
	}
	if page := md.page(t, fmt.Sprintf("/player/%d", playerID)); strings.Contains(page, fmt.Sprintf(`/game/%d"`, id)) {
		t.Errorf("/player/%d links hidden game %d", playerID, id)
	}
}
