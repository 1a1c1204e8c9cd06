package server_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
)

var movesShown = regexp.MustCompile(`Moves (\d+)\b`)

// tilesOnScreen are the numbers on the screen's board, row by row: the
// lines with no letters (the header, status and key lines have some).
func tilesOnScreen(screen string) string {
	var rows []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.IndexFunc(l, unicode.IsLetter) >= 0 {
			continue
		}
		var row []string
		for _, f := range strings.Fields(l) {
			if n := strings.Trim(f, "│"); n != "" && strings.Trim(n, "0123456789") == "" {
				row = append(row, n)
			}
		}
		if len(row) > 0 {
			rows = append(rows, strings.Join(row, " "))
		}
	}
	return strings.Join(rows, "/")
}

// oneBoxWidth reports whether every tile's box on screen is as wide as
// the others: none is popped.
func oneBoxWidth(screen string) bool {
	widths := map[int]bool{}
	for _, l := range strings.Split(screen, "\n") {
		for _, f := range strings.Fields(l) {
			if strings.HasPrefix(f, "┌") {
				widths[len([]rune(f))] = true
			}
		}
	}
	return len(widths) == 1
}

// openScreenEnv is openScreen with a variable in the session's
// environment.
func openScreenEnv(t *testing.T, c *gossh.Client, cmd string, w, h int, name, value string) *vtScreen {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Setenv(name, value); err != nil {
		t.Fatal(err)
	}
	return &vtScreen{servertest.AttachScreen(t, s, cmd, w, h), t}
}

// boardTiles is what tilesOnScreen reads off a screen showing b.
func boardTiles(b engine.Board) string {
	var rows []string
	for r := range b.Size() {
		var row []string
		for c := range b.Size() {
			if v := b.Value(r, c); v != 0 {
				row = append(row, strconv.Itoa(v))
			}
		}
		if len(row) > 0 {
			rows = append(rows, strings.Join(row, " "))
		}
	}
	return strings.Join(rows, "/")
}

// TestMotionEndsAtRest plays the game screen over SSH with motion on:
// after each move's slide and pop, the screen comes to rest on the
// stored board with the stored move count, as it does without motion.
func TestMotionEndsAtRest(t *testing.T) {
	ts := startServer(t, func(c *server.Config) { c.Motion, c.MotionScreens = true, 100 })
	key := newKey(t)
	// Without colour, tiles are boxes, and a popped tile's box is wider.
	scr := openScreenEnv(t, ts.dial(t, "mo", key), "play --size 4", 80, 24, "NO_COLOR", "1")
	scr.waitText("the game", "Moves 0")
	p, err := ts.store.UpsertPlayer(context.Background(), gossh.FingerprintSHA256(key.PublicKey()), "ssh-ed25519", "mo")
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range []string{arrowLeft, arrowDown, arrowRight, arrowDown, arrowLeft, arrowDown, arrowRight, arrowDown} {
		scr.send(k)
		games, err := ts.store.PlayerGames(context.Background(), p.ID, 1)
		if err != nil || len(games) == 0 {
			t.Fatalf("games: %v %v", games, err)
		}
		full, err := ts.store.FullGame(context.Background(), games[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		// The key may not be stored yet: wait for the screen to rest on
		// the stored board, read again until they agree.
		scr.waitUntil("key "+strconv.Itoa(i+1)+" at rest", func(s string) bool {
			if full2, err := ts.store.FullGame(context.Background(), games[0].ID); err == nil {
				full = full2
			}
			b, err := engine.ParseBoard(full.Board)
			m := movesShown.FindStringSubmatch(s)
			return err == nil && m != nil && m[1] == strconv.Itoa(full.Moves) && tilesOnScreen(s) == boardTiles(b) && oneBoxWidth(s)
		})
	}
}

var scoreShown = regexp.MustCompile(`Score (\d+)\b`)

// TestRaceMotionEndsAtRest plays the race screen over SSH with motion on:
// after each of the racer's moves, their own board comes to rest on
// their race game's stored board and score, no box popped.
func TestRaceMotionEndsAtRest(t *testing.T) {
	s := servertest.Start(t, t.TempDir(), "127.0.0.1:0", servertest.Races(race.WithTimes(300*time.Millisecond, 300*time.Millisecond, time.Minute)), func(c *server.Config) {
		c.Limits.KeyRate, c.Limits.BotRate = 1000, 0
		c.Motion, c.MotionScreens = true, 100
	})
	ts := &testServer{srv: s.Srv, store: s.Store, addr: s.Addr, dir: s.Dir, logs: s.Logs}
	key := newKey(t)
	ann := openScreenEnv(t, ts.dial(t, "ann", key), "race", 80, 24, "NO_COLOR", "1")
	ann.waitText("the public lobby", "Waiting for a second racer")
	openScreen(t, ts.dial(t, "bob", newKey(t)), "race", 80, 24)
	ann.waitText("the race", "left", "Place", "bob")
	p, err := ts.store.UpsertPlayer(context.Background(), gossh.FingerprintSHA256(key.PublicKey()), "ssh-ed25519", "ann")
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range []string{arrowLeft, arrowDown, arrowRight, arrowDown, arrowLeft, arrowDown, arrowRight, arrowDown} {
		ann.send(k)
		ann.waitUntil("key "+strconv.Itoa(i+1)+" at rest", func(scr string) bool {
			games, err := ts.store.PlayerGames(context.Background(), p.ID, 1)
			if err != nil || len(games) == 0 {
				return false
			}
			full, err := ts.store.FullGame(context.Background(), games[0].ID)
			if err != nil {
				return false
			}
			b, err := engine.ParseBoard(full.Board)
			own := ownBoard(scr, "bob")
			m := scoreShown.FindStringSubmatch(scr)
			return err == nil && m != nil && m[1] == strconv.Itoa(full.Score) && tilesOnScreen(own) == boardTiles(b) && oneBoxWidth(own)
		})
	}
}

// ownBoard is the race screen's lines cut where the opponents' column
// begins: at the first column of the opponent's name.
func ownBoard(screen, opponent string) string {
	lines := strings.Split(screen, "\n")
	x := -1
	for _, l := range lines {
		if i := strings.Index(l, opponent); i >= 0 {
			if w := len([]rune(l[:i])); x < 0 || w < x {
				x = w
			}
		}
	}
	if x < 0 {
		return screen
	}
	for i, l := range lines {
		if r := []rune(l); len(r) > x {
			lines[i] = string(r[:x])
		}
	}
	return strings.Join(lines, "\n")
}
