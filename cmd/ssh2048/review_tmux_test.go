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

	"github.com/ssh2048/ssh2048/wire"
)

// TestTmuxReplayReview: the replay with the AI's review, through OpenSSH
// in an 80×24 terminal: a asks for it, the move shown carries its mark
// and the AI's choice, the sparkline is drawn, n goes to a mistake and t
// to the turning point.
func TestTmuxReplayReview(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	tm := newTmux(t)
	srv := startProcess(t, buildBinary(t), filepath.Join(t.TempDir(), "data"), "SSH2048_BOT_RATE=0")
	playBotGame(t, srv.addr, "rea", 3, 0)
	var rows []wire.ScoreEntry
	if err := json.Unmarshal([]byte(sshRun(t, srv.addr, "rea", "scores --bots --size 3 --json")), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("scores: %v %+v", err, rows)
	}
	id := strconv.FormatInt(rows[0].GameID, 10)
	viewer := openSSHCommand(t, sshPath, srv.addr)
	tm.newSession(viewer("replay", id) + "; sleep 60")
	first := tm.waitFor("the replay", has("Move 0/"))
	if !strings.Contains(first, "a n t") && !strings.Contains(first, "? help") {
		t.Fatalf("the replay's first screen:\n%s", first)
	}
	tm.run("send-keys", "-t", "game", "a")
	tm.waitFor("the review", has("Accuracy "))
	tm.run("send-keys", "-t", "game", "n")
	marked := regexp.MustCompile(`Move (\d+)/\d+(\?\?|\?)`)
	mistake := tm.waitFor("a mistake", func(s string) bool { return marked.MatchString(s) })
	m := marked.FindStringSubmatch(mistake)
	line := regexp.MustCompile(`Move ` + m[1] + `: \w+` + regexp.QuoteMeta(m[2]) + ` (mistake|blunder) \(−[0-9.]+%\) · AI: \w+`)
	if !line.MatchString(mistake) || !strings.Contains(mistake, "│") {
		t.Errorf("move %s%s: no line with the AI's choice, or no sparkline:\n%s", m[1], m[2], mistake)
	}
	t.Logf("the replay at a mistake, as OpenSSH shows it:\n%s", mistake)
	tm.run("send-keys", "-t", "game", "t")
	atTurn := regexp.MustCompile(`(?m)· turning point\s*$`)
	turn := tm.waitFor("the turning point", func(s string) bool {
		return atTurn.MatchString(s) || strings.Contains(s, "No turning point")
	})
	if tp := regexp.MustCompile(`Move (\d+): .*· turning point`).FindStringSubmatch(turn); tp != nil {
		if !strings.Contains(turn, fmt.Sprintf("Move %s/", tp[1])) {
			t.Errorf("the turning point's line and the header disagree:\n%s", turn)
		}
	}
	tm.run("send-keys", "-t", "game", "q")
}
