package server_test

import (
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/wire"
)

// TestHidePlayerTakesTheGameInPlayOffTheLiveList: `hide PLAYER` hides
// every game of the player, "the games already in play there included"
// (docs/moderation.md), off "the spectators' lists (TV, /live)": a game
// the player is playing when the admin hides them leaves Live, /live and
// /api/live at once (on another node, or hidden from the console, within
// seconds), not only once it is opened again, as it used to.
func TestHidePlayerTakesTheGameInPlayOffTheLiveList(t *testing.T) {
	md := startModerated(t)
	carl := startBot(t, md.dial(t, "carl", newKey(t)), "")
	st := playSome(t, carl, carl.mustRead(), 4)
	dan := startBot(t, md.dial(t, "dan", newKey(t)), "")
	playSome(t, dan, dan.mustRead(), 4)

	md.games.Live(0) // asked just before the hide: the hide must not wait for the next ask
	md.adminRun(t, `hide carl --reason "a script"`, wire.ExitOK)
	// Carl plays on, as a hidden player may.
	playSome(t, carl, st, 2)

	var live []string
	for _, snap := range md.games.Live(0) {
		live = append(live, snap.Player)
	}
	if len(live) != 1 || live[0] != "dan" {
		t.Errorf("live games with carl hidden while playing: %q; want dan's only", live)
	}
	if body := md.page(t, "/api/live"); strings.Contains(body, `"carl"`) {
		t.Errorf("/api/live with carl hidden while playing still lists carl:\n%s", body)
	}
}
