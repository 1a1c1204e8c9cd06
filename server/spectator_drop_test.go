package server_test

import (
	"testing"
)

// TestDroppedSpectatorStopsWatching: a spectator whose connection drops
// without quitting (a laptop lid, a lost network) stops watching, on
// every screen that watches: the count on the other spectators' screens
// goes down. The viewing screens used to close their watch only when
// they quit, so a dropped spectator stayed counted, and kept the game's
// feed, for as long as the server ran: a client could grow that at will.
func TestDroppedSpectatorStopsWatching(t *testing.T) {
	for _, cmd := range []string{"watch ann", "tv"} {
		t.Run(cmd, func(t *testing.T) {
			ts := startServer(t)
			player := startBot(t, ts.dial(t, "ann", newKey(t)), "--size 4")
			player.mustRead()
			stays := openScreen(t, ts.dialGuest(t), "watch ann", 100, 30)
			stays.waitText("the first spectator", "1 watching")
			dropping := ts.dialGuest(t)
			openScreen(t, dropping, cmd, 100, 30).waitText("the second spectator", "ann")
			stays.waitText("the second spectator counted", "2 watching")
			dropping.Close()
			stays.waitText("the dropped spectator gone", "1 watching")
		})
	}
}
