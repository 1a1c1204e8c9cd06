package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

// pane returns the visible text of a tmux session's pane.
func (tm *tmux) pane(target string) string {
	tm.t.Helper()
	return tm.run("capture-pane", "-p", "-t", target)
}

// waitForPane polls a session's pane until ok accepts it.
func (tm *tmux) waitForPane(target, what string, ok func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := tm.pane(target)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("%s: timed out waiting for %s; screen:\n%s", target, what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// start runs command in a new 80×24 tmux session named name, with the
// player's own window title set first, to be found again at the end.
func (tm *tmux) start(name, command string) {
	tm.t.Helper()
	tm.run("new-session", "-d", "-s", name, "-x", "80", "-y", "24", "-e", "TERM=xterm-256color",
		`printf '\033]2;my shell\007'; sleep 0.3; `+command+`; echo EXIT=$?; sleep 60`)
}

// numbers are a screen's board: the numbers on the lines without words.
func numbers(screen string) string {
	var rows []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.IndexFunc(l, unicode.IsLetter) >= 0 {
			continue
		}
		if f := strings.Fields(l); len(f) > 0 {
			rows = append(rows, strings.Join(f, " "))
		}
	}
	return strings.Join(rows, "/")
}

func has(s string) func(string) bool { return func(t string) bool { return strings.Contains(t, s) } }

// leftRestored checks that a screen that ended gave the terminal back:
// the main screen, the cursor shown, the player's own title, the last
// line and the exit status.
func leftRestored(t *testing.T, tm *tmux, target, line string, status int) {
	t.Helper()
	screen := tm.waitForPane(target, "the exit status", func(s string) bool { return exitRe.MatchString(s) })
	if got, _ := strconv.Atoi(exitRe.FindStringSubmatch(screen)[1]); got != status {
		t.Errorf("%s: exit status %d, want %d:\n%s", target, got, status, screen)
	}
	if !strings.Contains(strings.Join(strings.Fields(screen), " "), line) {
		t.Errorf("%s: the last line %q is not on the screen:\n%s", target, line, screen)
	}
	if alt, cursor, title := tm.paneState(target); alt || !cursor || title != "my shell" {
		t.Errorf("%s after the end: alternate screen %v, cursor shown %v, title %q; want false, true, %q", target, alt, cursor, title, "my shell")
	}
}

var moveOfRe = regexp.MustCompile(`Move (\d+)/(\d+)`)

// TestTmuxWatchTVReplay: the screens that show games, through OpenSSH in
// 80×24 terminals: a spectator and TV follow a player's moves, keep the
// last board when the player leaves, resize like the game screen, and
// give the terminal back at the end; the player's game replays move by
// move to the board they left.
func TestTmuxWatchTVReplay(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	tm := newTmux(t)
	addr := startProcess(t, buildBinary(t), filepath.Join(t.TempDir(), "data")).addr
	player, spectator := openSSHCommand(t, sshPath, addr), openSSHCommand(t, sshPath, addr)
	tm.newSession(player() + "; sleep 60")
	tm.waitFor("the game screen", func(s string) bool { return movesOn(s) >= 0 })

	tm.start("spec", spectator("watch", "ada"))
	tm.start("tv", spectator("tv"))
	tm.waitForPane("spec", "the game", has("2048 ada 4×4 ● live"))
	tm.waitForPane("tv", "ada's game", has("TV · 2048 ada 4×4 ● live"))
	tm.waitFor("the spectators counted", has("2 watching"))

	for _, k := range []string{"Left", "Up", "Right", "Down", "Left", "Up"} {
		tm.run("send-keys", "-t", "game", k)
	}
	var played string
	for last := -1; ; last = movesOn(played) {
		time.Sleep(200 * time.Millisecond)
		if played = tm.screen(); movesOn(played) == last && last > 0 {
			break
		}
	}
	moves := movesOn(played)
	for _, target := range []string{"spec", "tv"} {
		s := tm.waitForPane(target, fmt.Sprintf("move %d", moves), has(fmt.Sprintf("Moves %d ", moves)))
		if numbers(s) != numbers(played) {
			t.Fatalf("%s shows another board:\n%s\nthe player's:\n%s", target, s, played)
		}
	}

	// Resize: too small, then back, the board as it was.
	tm.run("resize-window", "-t", "spec", "-x", "30", "-y", "8")
	small := tm.waitForPane("spec", "the too-small message", has("Window too small"))
	if !strings.Contains(small, "q quit") {
		t.Errorf("too small, and no way out:\n%s", small)
	}
	tm.run("resize-window", "-t", "spec", "-x", "80", "-y", "24")
	again := tm.waitForPane("spec", "the board again", has(fmt.Sprintf("Moves %d ", moves)))
	if numbers(again) != numbers(played) {
		t.Fatalf("after resizing back:\n%s\nwant the player's board:\n%s", again, played)
	}

	// The player leaves: the spectator keeps the last board; TV says no
	// one plays.
	tm.run("send-keys", "-t", "game", "q")
	left := tm.waitForPane("spec", "the player leaving", has("ada left; here is the last board."))
	if numbers(left) != numbers(played) {
		t.Fatalf("the last board is not kept:\n%s", left)
	}
	tm.waitForPane("tv", "no one playing", has("ada left. No one else is playing right now; waiting…"))
	tm.run("send-keys", "-t", "spec", "q")
	leftRestored(t, tm, "spec", "Stopped watching ada.", 0)
	tm.run("send-keys", "-t", "tv", "q")
	leftRestored(t, tm, "tv", "Thanks for watching 2048 TV.", 0)

	// The replay of the game, to the board the player left.
	out, err := exec.Command("sh", "-c", strings.Replace(player("scores", "--json"), " -t ", " -T ", 1)).CombinedOutput()
	var rows []struct {
		GameID int64 `json:"game_id"`
	}
	if err != nil || json.Unmarshal(out, &rows) != nil || len(rows) != 1 {
		t.Fatalf("scores: %v %s", err, out)
	}
	tm.start("replay", spectator("replay", strconv.FormatInt(rows[0].GameID, 10)))
	start := tm.waitForPane("replay", "the replay", has(fmt.Sprintf("Move 0/%d", moves)))
	if !strings.Contains(start, "Replay ada 4×4 #") || !strings.Contains(start, "space play") {
		t.Fatalf("the replay's first screen:\n%s", start)
	}
	tm.run("send-keys", "-t", "replay", "End")
	end := tm.waitForPane("replay", "the end", has(fmt.Sprintf("Move %d/%d", moves, moves)))
	if numbers(end) != numbers(played) {
		t.Fatalf("the replay ends on\n%s\nthe player left\n%s", end, played)
	}
	tm.run("send-keys", "-t", "replay", "Home", "Right", "Right")
	tm.waitForPane("replay", "move 2", has(fmt.Sprintf("Move 2/%d", moves)))
	tm.run("send-keys", "-t", "replay", "+", "+", "+", "Space")
	tm.waitForPane("replay", "played to the end", has(fmt.Sprintf("Move %d/%d", moves, moves)))
	tm.run("resize-window", "-t", "replay", "-x", "50", "-y", "16")
	// The board drawn whole for the narrower window: a frame drawn for
	// the old one would be cut or wrapped by the terminal.
	narrow := tm.waitForPane("replay", "a narrower window", func(s string) bool {
		return moveOfRe.MatchString(s) && numbers(s) == numbers(played) && strings.Contains(s, "q quit")
	})
	if strings.Contains(narrow, "space play ·") && strings.Contains(narrow, "g G start/end") {
		t.Errorf("at 50 columns the key line kept every key:\n%s", narrow)
	}
	tm.run("send-keys", "-t", "replay", "q")
	leftRestored(t, tm, "replay", fmt.Sprintf("Closed the replay of game %d by ada.", rows[0].GameID), 0)
}
