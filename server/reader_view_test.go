package server_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/wire"
)

// The commands that show games (watch, tv, replay, history) with the
// setting for screen readers on: sentences, a line each, never a board
// drawn (docs/screen-reader.md, "The screens that show games").

// waitLine waits until the transcript holds a line that contains want.
func waitLine(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("a line with %q", want), func() bool { return strings.Contains(out.String(), want) })
}

// quitReader quits a reader's session and checks its end: status 0, the
// last line last, and not one escape sequence in all it wrote.
func quitReader(t *testing.T, sess *gossh.Session, out *syncBuffer, send func(string), last string) {
	t.Helper()
	if code := quitScreen(t, sess, send); code != wire.ExitOK {
		t.Errorf("exit status %d, want 0", code)
	}
	text := out.String()
	if !strings.HasSuffix(text, "\r\n"+last+"\r\n") {
		t.Errorf("the session does not end with %q:\n%s", last, text)
	}
	if strings.ContainsRune(text, '\x1b') || strings.Contains(text, "\r\n\r\n") {
		t.Errorf("the transcript holds an escape sequence or an empty line: %q", text)
	}
	t.Logf("transcript:\n%s", strings.ReplaceAll(text, "\r\n", "\n"))
}

var directionWord = map[string]string{"up": "Up", "down": "Down", "left": "Left", "right": "Right"}

// TestReaderWatch: `watch NAME` with the setting on says whose game it
// is and its board, then each of the player's moves in a sentence as it
// is made (its direction and score those the player got), reads the
// board and the game on b and r, tells the player leaving, and ends with
// one line.
func TestReaderWatch(t *testing.T) {
	ts := startServer(t)
	player := startBot(t, ts.dial(t, "ann", newKey(t)), "--size 4")
	player.mustRead()
	sess, out, send := readerSession(t, ts.dial(t, "viv", newKey(t)), "watch ann")
	waitLine(t, out, "Watching ann's 4 by 4 bot game: 0 moves, score 0, 1 watching.\r\nRow 1: ")

	told := 0
	for i := 0; told < 12; i++ {
		d := engine.Directions()[i%4].String()
		player.send(d)
		st := player.mustRead()
		if !st.Moved {
			continue
		}
		told++
		want := fmt.Sprintf("Score %d.\r\n", st.Score)
		waitFor(t, fmt.Sprintf("move %d's sentence", st.Moves), func() bool {
			return len(moveSentence.FindAllString(out.String(), -1)) == told
		})
		last := moveSentence.FindAllString(out.String(), -1)[told-1]
		if !strings.HasPrefix(last, directionWord[d]+": ") || !strings.HasSuffix(last, want) {
			t.Fatalf("move %d (%s, score %d) is told %q", st.Moves, d, st.Score, last)
		}
	}
	for _, k := range []struct{ key, want string }{
		{"b", "Row 4: "},
		{"r", "ann's 4 by 4 bot game, live: 12 moves, score "},
		{"?", "space stops telling each move, or tells them again.\r\n"},
		{" ", "Moves are not told now"},
		{" ", "Each move is told again."},
		{"x", "That key does nothing here; ? lists the keys.\r\n"},
	} {
		send(k.key)
		waitLine(t, out, k.want)
	}
	player.finish()
	waitLine(t, out, "ann left; b reads the last board.\r\n")
	if strings.Contains(out.String(), "┌") || strings.Contains(out.String(), "│") {
		t.Errorf("the transcript draws a board: %q", out.String())
	}
	quitReader(t, sess, out, send, "Stopped watching ann.")
}

// TestReaderTV: `tv` with the setting on says it waits while no one
// plays, then whose game is on and its moves, and the switch when another
// game overtakes it.
func TestReaderTV(t *testing.T) {
	ts := startServer(t)
	sess, out, send := readerSession(t, ts.dialGuest(t), "tv --size 3")
	waitLine(t, out, "No one is playing 3 by 3 right now; waiting.\r\n")
	ann := startBot(t, ts.dial(t, "ann", newKey(t)), "--size 3")
	a := playBot(ann, ann.mustRead(), func(s state) bool { return s.Moves >= 1 })
	waitLine(t, out, "On TV: ann's 3 by 3 bot game: ")
	waitLine(t, out, "Row 3: ")
	send("r")
	waitLine(t, out, fmt.Sprintf("ann's 3 by 3 bot game, live: %d move", a.Moves))

	bob := startBot(t, ts.dial(t, "bob", newKey(t)), "--size 3")
	b := playBot(bob, bob.mustRead(), func(s state) bool { return s.Score > a.Score })
	if b.Score <= a.Score {
		t.Skip("bob's game ended below ann's score") // seeds are random
	}
	waitLine(t, out, "bob overtook ann.\r\nOn TV: bob's 3 by 3 bot game: ")
	before := len(moveSentence.FindAllString(out.String(), -1))
	bob.send("left")
	if st := bob.mustRead(); st.Moved {
		waitFor(t, "bob's move told", func() bool { return len(moveSentence.FindAllString(out.String(), -1)) > before })
	}
	ann.finish()
	bob.finish()
	quitReader(t, sess, out, send, "Thanks for watching 2048 TV.")
}

// TestReaderReplay: `replay GAME` with the setting on says which game
// it is and its first board, then steps on and back a move at a time, a
// line each, jumps to the end, the start and a move by number, and
// reads the board.
func TestReaderReplay(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "eve", newKey(t))
	last, id := endedBotGame(t, c, 3)
	n := last.Moves
	sess, out, send := readerSession(t, ts.dialGuest(t), "replay "+id)
	waitLine(t, out, fmt.Sprintf("the replay of game %s, eve's 3 by 3 bot game, %d moves, final score %d.\r\n", id, n, last.Score))
	waitLine(t, out, fmt.Sprintf("The start: move 0 of %d, score 0.\r\nRow 1: ", n))

	steps := []struct{ key, want string }{
		{"l", fmt.Sprintf(" Move 1 of %d.\r\n", n)},
		{"\x1b[C", fmt.Sprintf(" Move 2 of %d.\r\n", n)},
		{"h", fmt.Sprintf("Move 1 of %d, score ", n)},
		{"\x1b[D", fmt.Sprintf("The start: move 0 of %d, score 0.\r\n", n)},
		{"h", fmt.Sprintf("This is the start: move 0 of %d.\r\n", n)},
		{"G", fmt.Sprintf("The end: move %d of %d, eve scored %d.\r\n", n, n, last.Score)},
		{"l", fmt.Sprintf("This is the end: move %d of %d. g goes to the start.\r\n", n, n)},
		{"g", fmt.Sprintf("The start: move 0 of %d, score 0.\r\n", n)},
		{":", fmt.Sprintf("Go to move: type its number, 0 to %d, then enter; escape cancels.\r\n", n)},
		{"2\r", fmt.Sprintf("Move 2 of %d, score ", n)},
		{":999\r", fmt.Sprintf("No move 999: the game has %d; here is the last.\r\nThe end: ", n)},
		{"b", "Row 3: "},
		{"r", fmt.Sprintf("The end: move %d of %d, eve scored %d.\r\n", n, n, last.Score)},
		{"?", "colon, then a move's number and enter, goes to that move.\r\n"},
		{"x", "That key does nothing here; ? lists the keys.\r\n"},
	}
	for _, s := range steps {
		before := strings.Count(out.String(), s.want)
		send(s.key)
		waitFor(t, fmt.Sprintf("%q after %q", s.want, s.key), func() bool { return strings.Count(out.String(), s.want) > before })
	}
	// Each step on is one sentence: the direction, what merged, the new
	// tile and the score, then where the replay stands.
	stepLine := regexp.MustCompile(`(?m)^(Left|Right|Up|Down): .*new \d+ at row \d, column \d\. Score \d+\. Move 1 of \d+\.\r$`)
	if !stepLine.MatchString(out.String()) {
		t.Errorf("the first step is not told in one sentence:\n%s", out.String())
	}
	quitReader(t, sess, out, send, fmt.Sprintf("Closed the replay of game %s by eve.", id))
}

// TestReaderHistory: `history` with the setting on reads the player's
// games as lines; the arrows pick one and read it, enter replays it in
// lines, escape comes back to the list.
func TestReaderHistory(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	c := ts.dial(t, "fay", key)
	last, id := endedBotGame(t, c, 3)
	live, liveID := liveBotGame(t, c, 4, 5)
	defer live.finish()
	sess, out, send := readerSession(t, ts.dial(t, "fay", key), "history")
	waitLine(t, out, "Your 2 most recent games:\r\n")
	waitLine(t, out, fmt.Sprintf("1. Game %s, 4 by 4 bot game: score ", liveID))
	waitLine(t, out, "; in play.\r\n")
	waitLine(t, out, fmt.Sprintf("2. Game %s, 3 by 3 bot game: score %d, best tile ", id, last.Score))
	waitLine(t, out, fmt.Sprintf(", %d moves; ", last.Moves)) // won, or not
	waitLine(t, out, "ended just now.\r\n")
	waitLine(t, out, "Your best game of each size:\r\n")
	waitLine(t, out, "Enter replays the game picked, now number 1; up and down arrows pick another.\r\n")

	for _, s := range []struct{ key, want string }{
		{"j", fmt.Sprintf("2. Game %s, 3 by 3 bot game", id)},
		{"\x1b[A", fmt.Sprintf("1. Game %s, 4 by 4 bot game", liveID)},
		{"k", "That is the first game of the list.\r\n"},
		{"\x1b[B", fmt.Sprintf("2. Game %s, 3 by 3", id)},
		{"\r", fmt.Sprintf("Opening game %s.\r\nThe replay of game %s, fay's 3 by 3 bot game", id, id)},
		{"l", fmt.Sprintf(" Move 1 of %d.\r\n", last.Moves)},
		{"\x1b", fmt.Sprintf("Back to your games: 2. Game %s", id)},
		{"1\r", fmt.Sprintf("The replay of game %s, fay's 4 by 4 bot game, 5 moves so far", liveID)},
		{"\x1b", fmt.Sprintf("Back to your games: 1. Game %s", liveID)},
		{"9\r", "There is no game 9 in the list: it has "},
		{"?", "enter replays the game picked; a number, then enter, replays that one of the list.\r\n"},
	} {
		before := strings.Count(out.String(), s.want)
		send(s.key)
		waitFor(t, fmt.Sprintf("%q after %q", s.want, s.key), func() bool { return strings.Count(out.String(), s.want) > before })
	}
	quitReader(t, sess, out, send, "Your games are kept; the replay command replays any of them by its game number.")
}

// TestReaderViewingEndsSayOneLine: a screen that shows games, with the
// setting on, ends on the server's restart with one line (the
// spectators' own), the restart's exit status, and nothing drawn.
func TestReaderViewingEndsSayOneLine(t *testing.T) {
	for _, cmd := range []string{"tv", "history", "replay"} {
		t.Run(cmd, func(t *testing.T) {
			ts := startServer(t)
			key := newKey(t)
			c := ts.dial(t, "gus", key)
			_, id := endedBotGame(t, c, 3)
			if cmd == "replay" {
				cmd += " " + id
			}
			sess, out, _ := readerSession(t, ts.dial(t, "gus", key), cmd)
			waitLine(t, out, "2048 ")
			restartEndsWith(t, ts, sess, out, "\r\nThe server is restarting; reconnect in a moment to watch again.")
		})
	}
}
