package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// TestWatchOfARaceGameKeptBack: docs/bot-protocol.md's status table, 7:
// "`export`, `watch`, `replay`, `review`: ... a game of a race (its racers
// share its tiles), shown 10 minutes after it started". `replay` of a race
// game that no one plays now gets 7; `watch` of the same game must too.
func TestWatchOfARaceGameKeptBack(t *testing.T) {
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 200*time.Millisecond, 30*time.Second))
	key := newKey(t)
	a := startBot(t, ts.dial(t, "alpha", key), "--race --size 3")
	b := startBot(t, ts.dial(t, "beta", newKey(t)), "--race --size 3")
	for _, bot := range []*botSession{a, b} {
		if _, err := bot.out.ReadBytes('\n'); err != nil {
			t.Fatalf("first race line: %v; stderr %s", err, bot.stderr.String())
		}
	}
	a.send("left")
	if _, err := a.out.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	a.in.Close() // alpha leaves the race: its game is no one's to watch now
	if code := a.wait(); code != wire.ExitOK {
		t.Fatalf("alpha: exit %d", code)
	}
	ctx := context.Background()
	p, err := ts.store.UpsertPlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ssh-ed25519", "alpha")
	if err != nil {
		t.Fatal(err)
	}
	games, err := ts.store.PlayerGames(ctx, p.ID, 10)
	if err != nil || len(games) != 1 || !strings.HasPrefix(games[0].Contest, "race:") {
		t.Fatalf("alpha's games: %+v %v", games, err)
	}
	id := games[0].ID
	c := ts.dial(t, "carl", newKey(t))
	for _, cmd := range []string{"replay", "watch"} {
		s, out, send := ptyCommand(t, c, 80, 24, fmt.Sprintf("%s %d", cmd, id))
		code := quitScreen(t, s, send)
		if code != wire.ExitInPlay {
			t.Errorf("%s %d, a game of a race 2 s old: status %d, want %d; output %q", cmd, id, code, wire.ExitInPlay, out.String())
		}
	}
	b.in.Close()
}
