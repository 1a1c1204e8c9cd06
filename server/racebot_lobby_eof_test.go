package server_test

import (
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/wire"
)

// TestRaceBotLeavesTheLobbyWhenItsInputCloses: docs/bot-protocol.md, racing bot,
// point 1: "A line sent meanwhile is held and played once the race runs
// ...; closing the input leaves the lobby (status 0)." A bot that sends a
// line and then closes its input while it waits must leave the lobby too.
func TestRaceBotLeavesTheLobbyWhenItsInputCloses(t *testing.T) {
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 200*time.Millisecond, 5*time.Second))
	b := startBot(t, ts.dial(t, "ann", newKey(t)), "--race --room quiet-otter")
	b.send("up")
	b.in.Close()
	select {
	case err := <-b.done:
		if code := exitCode(t, err); code != wire.ExitOK {
			t.Fatalf("exit %d, want 0; stderr %q", code, b.stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the bot closed its input in the lobby, with a line sent before, and is still in the room 5 s later")
	}
}
