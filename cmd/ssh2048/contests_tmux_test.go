package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
)

// startContestServer runs the real server in the test's process, with
// races of a few seconds, for OpenSSH to connect to.
func startContestServer(t *testing.T) string {
	t.Helper()
	s := servertest.Start(t, filepath.Join(t.TempDir(), "data"), "127.0.0.1:0",
		servertest.Races(race.WithTimes(time.Second, time.Second, 8*time.Second)),
		func(c *server.Config) { c.Limits.MaxConnsPerIP = 0 })
	return s.Addr
}

// TestTmuxDaily plays today's challenge through OpenSSH in an 80×24
// tmux window: the header with the day and the streak, no AI keys, the
// game resumed after a reconnect, and today's board on tab.
func TestTmuxDaily(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	tm := newTmux(t)
	sshCmd := openSSHCommand(t, sshPath, startContestServer(t))
	today := time.Now().UTC().Format("2006-01-02")
	tm.newSession(sshCmd("daily") + "; sleep 60")
	first := tm.waitFor("the daily header", func(s string) bool { return strings.Contains(s, "Daily "+today+" 4×4") })
	t.Logf("the daily at 80×24:\n%s", first)
	if strings.Contains(first, "hint") || strings.Contains(first, "autoplay") || !strings.Contains(first, "Streak 0") {
		t.Fatalf("the daily's header or keys:\n%s", first)
	}
	for _, k := range []string{"Left", "Up", "Right", "Down", "Left", "Up"} {
		tm.run("send-keys", "-t", "game", k)
	}
	tm.waitFor("the streak and rank", func(s string) bool {
		return strings.Contains(s, "Streak 1") && strings.Contains(s, "Rank #1") && movesOn(s) > 0
	})
	// Keys that change nothing do not count: wait for the counter to
	// settle rather than for a number.
	played, last := tm.screen(), -1
	for range 40 {
		if played = tm.screen(); movesOn(played) == last {
			break
		}
		last = movesOn(played)
		time.Sleep(150 * time.Millisecond)
	}
	tm.run("send-keys", "-t", "game", "q")
	tm.waitFor("the goodbye line", func(s string) bool { return strings.Contains(s, "saved") })
	tm.run("kill-session", "-t", "game")

	tm.newSession(sshCmd("daily") + "; sleep 60")
	back := tm.waitFor("the daily again, ranked", func(s string) bool { return movesOn(s) >= 0 && strings.Contains(s, "Rank #1") })
	if movesOn(back) != movesOn(played) || boardText(back) != boardText(played) {
		t.Fatalf("the daily did not resume:\n%s\nleft:\n%s", back, played)
	}
	tm.run("send-keys", "-t", "game", "Tab")
	tm.waitFor("today's board", func(s string) bool { return strings.Contains(s, "[today's daily]") && strings.Contains(s, "ada") })
}

// TestTmuxRace races two players through OpenSSH in two 80×24 tmux
// windows: the lobby, the host's start, the race with the opponent's
// board and the clock, the results with the rating change.
func TestTmuxRace(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	addr := startContestServer(t)
	host, guest := newTmux(t), newTmux(t)
	host.newSession(openSSHCommand(t, sshPath, addr)("race", "--room", "blue-fox") + "; sleep 60")
	host.waitFor("the host's lobby", func(s string) bool { return strings.Contains(s, "ada (host)") })
	guest.newSession(openSSHCommand(t, sshPath, addr)("race", "--room", "blue-fox") + "; sleep 60")
	lobby := host.waitFor("two racers", func(s string) bool { return strings.Contains(s, "Racers 2 of 8") })
	t.Logf("the lobby at 80×24:\n%s", lobby)
	host.run("send-keys", "-t", "game", "Enter")
	guest.waitFor("the countdown", func(s string) bool { return strings.Contains(s, "Starts in") || strings.Contains(s, "left") })
	host.waitFor("the race", func(s string) bool { return strings.Contains(s, "left") && strings.Contains(s, "Place") })
	for _, k := range []string{"Left", "Up", "Right", "Down", "Left", "Up", "Right", "Down"} {
		host.run("send-keys", "-t", "game", k)
	}
	race := guest.waitFor("the host's moves on the guest's screen", func(s string) bool {
		return strings.Contains(s, "Place") && !regexp.MustCompile(`ada\s+0\s`).MatchString(s)
	})
	t.Logf("the race at 80×24 (the guest's screen):\n%s", race)
	results := host.waitFor("the results", func(s string) bool { return strings.Contains(s, "Results") && strings.Contains(s, "→") })
	t.Logf("the results at 80×24:\n%s", results)
	if !strings.Contains(results, "(+") && !strings.Contains(results, "(−") {
		t.Fatalf("no rating change in the results:\n%s", results)
	}
	host.run("send-keys", "-t", "game", "q")
	host.waitFor("the goodbye line", func(s string) bool { return strings.Contains(s, "Thanks for racing") })
}
