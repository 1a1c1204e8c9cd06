package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// TestMergedKeysScreenNeverSaysItCouldNot: a screen of a key whose
// account a link deleted, on a node that did not hear of the link (its
// store tells of no merge), opens a game for the account gone: its
// first (a login that looked its key up just before the link), a new
// one, another size, the daily, a race's at its start, or its game again
// after a move that was not saved. The seat tells the session, which
// ends with the line and status 3 of a key that joined another account;
// the screen never says meanwhile that it could not load, open, start or
// save the game, as if the server had failed: it showed "Could not load
// your game: this key joined another account; reconnect" until the
// notice came, or ended with "Could not save your move" in place of the
// line.
func TestMergedKeysScreenNeverSaysItCouldNot(t *testing.T) {
	const (
		moved  = session.MovedText
		raced  = "This key joined another account, which ends your race"
		arrows = arrowLeft + arrowUp + arrowRight + arrowDown
	)
	tests := []struct {
		name   string
		cmd    string
		reader bool   // the screen for screen readers
		held   bool   // the login is held over the link: the screen's first game is the one opened
		race   bool   // carl races too, so that the race runs
		ready  string // what the screen shows once its game is open, when not held
		keys   string // typed once the key has joined bob's account
		fail   bool   // moves are not saved from then on: the screen opens its game again
		says   string
	}{
		{name: "game screen", cmd: "play --size 4", held: true, says: moved},
		{name: "daily", cmd: "daily", held: true, says: moved},
		{name: "new game", cmd: "play --size 4", ready: "Moves 0", keys: "ny", says: moved},
		{name: "another size", cmd: "play --size 4", ready: "Moves 0", keys: "5", says: moved},
		{name: "a move not saved", cmd: "play --size 4", ready: "Moves 0", keys: arrows, fail: true, says: moved},
		{name: "reader", cmd: "play --size 4", reader: true, held: true, says: moved},
		{name: "reader's daily", cmd: "daily", reader: true, held: true, says: moved},
		{name: "reader's new game", cmd: "play --size 4", reader: true, ready: "Press ? for the keys", keys: "ny", says: moved},
		{name: "reader's other size", cmd: "play --size 4", reader: true, ready: "Press ? for the keys", keys: "5", says: moved},
		{name: "reader's move not saved", cmd: "play --size 4", reader: true, ready: "Press ? for the keys", keys: arrows, fail: true, says: moved},
		{name: "race", cmd: "race", race: true, held: true, says: raced},
		{name: "race, a move not saved", cmd: "race", race: true, ready: "Place", keys: arrows, fail: true, says: raced},
		{name: "reader's race", cmd: "race", reader: true, race: true, held: true, says: raced},
		{name: "reader's race, a move not saved", cmd: "race", reader: true, race: true, ready: "Go!", keys: arrows, fail: true, says: raced},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, held := startHeldLogins(t, true,
				servertest.Races(race.WithTimes(200*time.Millisecond, 200*time.Millisecond, 8*time.Second)),
				func(c *server.Config) { c.Limits.KeyRate = 1000 })
			bobKey, alphaKey := ts.visited(t, "bob"), ts.visited(t, "alpha")
			open := func(c *gossh.Client) *vtScreen {
				if tt.reader {
					return openScreenEnv(t, c, tt.cmd, 100, 30, "SSH2048_SCREEN", "reader")
				}
				return openScreen(t, c, tt.cmd, 100, 30)
			}
			if tt.held {
				held.hold(gossh.FingerprintSHA256(alphaKey.PublicKey()))
			}
			alpha := open(ts.dial(t, "alpha", alphaKey))
			couldNot := alpha.Watch("Could not")
			if tt.held {
				held.linkWhileHeld(t, ts, alphaKey, bobKey)
			}
			if tt.race {
				open(ts.dial(t, "carl", newKey(t)))
			}
			if !tt.held {
				alpha.waitText("alpha's game", tt.ready)
				code := linkCodeOf(t, accountServer{ts, nil}, bobKey)
				if r := run(t, ts.dial(t, "alpha", alphaKey), "link "+code+" --merge", ""); r.code != wire.ExitOK {
					t.Fatalf("alpha's key joins bob's account: %+v", r)
				}
				held.failMoves.Store(tt.fail)
				alpha.send(tt.keys)
			}
			if status := alpha.wait(); status != wire.ExitTakenOver || !strings.Contains(alpha.text(), tt.says) {
				t.Errorf("alpha's %s, its account merged away: status %d, screen\n%s\nwant %d and %q",
					tt.name, status, alpha.text(), wire.ExitTakenOver, tt.says)
			}
			if couldNot() {
				t.Errorf("alpha's %s said it could not do something, its account merged away", tt.name)
			}
		})
	}
}
