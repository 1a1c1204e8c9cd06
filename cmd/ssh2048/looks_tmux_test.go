package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// blockDigits are the characters block digits are drawn with.
const blockDigits = "█▀▄▌▐▖▗▘▝▙▛▜▟▚▞"

// TestTmuxLargeWindows plays the game screen over OpenSSH in tmux at
// 80×24, 120×40 and 200×60: at 80×24 the tiles' values are one line of
// text, as always; from 120×40 they are block digits, and the panel
// beside the board shows the best score, the rank and the leaderboard.
// SetEnv SSH2048_THEME=high-contrast draws the tiles in that theme.
// SSH2048_CAPTURES=DIR keeps each screen as text in DIR.
func TestTmuxLargeWindows(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	tm := newTmux(t)
	sshCmd := openSSHCommand(t, sshPath, startProcess(t, buildBinary(t), filepath.Join(t.TempDir(), "data")).addr)
	for _, size := range []struct {
		w, h   int
		big    bool
		setenv string
	}{{80, 24, false, ""}, {120, 40, true, ""}, {200, 60, true, "SSH2048_THEME=high-contrast"}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			tm.t = t
			cmd := sshCmd()
			if size.setenv != "" {
				cmd = strings.Replace(cmd, " -t ", " -t -o SetEnv="+size.setenv+" ", 1)
			}
			tm.newSessionAt(size.w, size.h, cmd+"; sleep 60")
			tm.waitFor("the game screen", func(s string) bool { return movesOn(s) >= 0 && strings.Contains(s, "q quit") })
			for _, k := range []string{"Left", "Up", "Right", "Down", "Left", "Up"} {
				tm.run("send-keys", "-t", "game", k)
			}
			want := func(s string) bool {
				if movesOn(s) < 3 || !strings.Contains(s, "q quit") {
					return false
				}
				// The panel's rows come once the leaderboard is read.
				return !size.big || strings.Contains(s, "Leaderboard 4×4")
			}
			screen := tm.waitFor("moves played", want)
			if dir := os.Getenv("SSH2048_CAPTURES"); dir != "" {
				name := filepath.Join(dir, fmt.Sprintf("game-%dx%d.txt", size.w, size.h))
				if err := os.WriteFile(name, []byte(screen), 0o644); err != nil {
					t.Error(err)
				}
			}
			// Laid out for the whole window: the header about its middle
			// (a little left of it while the figures are short).
			for _, l := range strings.Split(screen, "\n") {
				if text := strings.TrimSpace(l); strings.HasPrefix(text, "2048 4×4") {
					mid := strings.Index(l, text) + len([]rune(text))/2
					if mid < size.w/2-10 || mid > size.w/2+3 {
						t.Errorf("the header's middle is column %d of %d:\n%s", mid, size.w, screen)
					}
				}
			}
			if got := strings.ContainsAny(screen, blockDigits); got != size.big {
				t.Errorf("block digits shown: %v, want %v:\n%s", got, size.big, screen)
			}
			if got := strings.Contains(screen, "Leaderboard 4×4") && strings.Contains(screen, "ada"); got != size.big {
				t.Errorf("the panel with the leaderboard shown: %v, want %v:\n%s", got, size.big, screen)
			}
			if size.setenv != "" {
				coloured := tm.run("capture-pane", "-p", "-e", "-t", "game")
				// high-contrast's empty cell, #303030: 236 in 256 colours.
				if !strings.Contains(coloured, "48;2;48;48;48") && !strings.Contains(coloured, "48;5;236") {
					t.Errorf("SetEnv %s: the empty cells are not in that theme's colour", size.setenv)
				}
			}
			tm.run("send-keys", "-t", "game", "q")
			tm.waitFor("the goodbye line", func(s string) bool { return strings.Contains(s, "saved") })
			tm.run("kill-session", "-t", "game")
		})
	}
}

// TestTmuxRaceLargeWindows races two players over OpenSSH, one in a
// 120×40 window and one in 200×60: each sees the race balanced, the
// header centred over the window and the player's tiles in block digits
// (TestRaceBalancedInLargeWindows, in tui/racing, checks the layout cell
// by cell). SSH2048_CAPTURES=DIR keeps each screen as text in DIR.
func TestTmuxRaceLargeWindows(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	addr := startContestServer(t)
	host, guest := newTmux(t), newTmux(t)
	host.newSessionAt(120, 40, openSSHCommand(t, sshPath, addr)("race", "--room", "wide-room")+"; sleep 60")
	host.waitFor("the host's lobby", func(s string) bool { return strings.Contains(s, "ada (host)") })
	guest.newSessionAt(200, 60, openSSHCommand(t, sshPath, addr)("race", "--room", "wide-room")+"; sleep 60")
	host.waitFor("two racers", func(s string) bool { return strings.Contains(s, "Racers 2 of 8") })
	host.run("send-keys", "-t", "game", "Enter")
	for _, tm := range []*tmux{host, guest} {
		tm.waitFor("the race", func(s string) bool { return strings.Contains(s, "left") && strings.Contains(s, "Place") })
	}
	for _, k := range []string{"Left", "Up", "Right", "Down"} {
		host.run("send-keys", "-t", "game", k)
		guest.run("send-keys", "-t", "game", k)
	}
	for _, r := range []struct {
		tm   *tmux
		w, h int
	}{{host, 120, 40}, {guest, 200, 60}} {
		// A frame comes in pieces, top to bottom: the race's is taken
		// once it has stood still a moment (the clock ticks each second).
		var last string
		screen := r.tm.waitFor("the race with moves, drawn whole", func(s string) bool {
			steady := s == last
			last = s
			time.Sleep(100 * time.Millisecond)
			return steady && strings.Contains(s, "Place") && strings.ContainsAny(s, blockDigits)
		})
		if dir := os.Getenv("SSH2048_CAPTURES"); dir != "" {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("race-%dx%d.txt", r.w, r.h)), []byte(screen), 0o644); err != nil {
				t.Error(err)
			}
		}
		for _, l := range strings.Split(screen, "\n") {
			if !strings.Contains(l, "Race 4×4") {
				continue
			}
			text := strings.TrimSpace(l)
			left := strings.Index(l, text)
			if right := r.w - left - len([]rune(text)); left-right > 3 || right-left > 3 {
				t.Errorf("%d×%d: the header is not centred (%d columns left of it, %d right):\n%s", r.w, r.h, left, right, screen)
			}
		}
	}
}
