package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTmuxReader plays the screen for screen readers as a player of one
// does: OpenSSH's ssh -t with SetEnv SSH2048_SCREEN=reader, in a terminal
// that stays on its main screen with its cursor showing, every move a
// sentence in the scrollback, and the last line when they quit.
func TestTmuxReader(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	tm := newTmux(t)
	sshCmd := openSSHCommand(t, sshPath, startProcess(t, buildBinary(t), filepath.Join(t.TempDir(), "data")).addr)
	tm.newSession(strings.Replace(sshCmd(), " -t ", " -t -o SetEnv=SSH2048_SCREEN=reader ", 1) + "; sleep 60")
	tm.waitFor("the greeting", func(s string) bool { return strings.Contains(s, "Press ? for the keys.") })
	if got := tm.run("display-message", "-p", "-t", "game", "#{alternate_on} #{cursor_flag}"); got != "0 1\n" {
		t.Errorf("alternate screen and cursor shown: %q, want the main screen and the cursor (\"0 1\")", got)
	}

	sentence := regexp.MustCompile(`(?m)^(Left|Right|Up|Down): .*\.$`)
	history := func() string { return tm.run("capture-pane", "-p", "-J", "-S", "-", "-t", "game") }
	for i, k := range []string{"Left", "Up", "Right", "Down"} {
		tm.run("send-keys", "-t", "game", k)
		tm.waitFor(k+"'s sentence", func(string) bool { return len(sentence.FindAllString(history(), -1)) > i })
	}
	for _, k := range []struct{ key, want string }{{"b", "Row 4: "}, {"r", "rank "}, {"?", "q quits; your game is kept."}} {
		tm.run("send-keys", "-t", "game", k.key)
		tm.waitFor(k.want, func(string) bool { return strings.Contains(history(), k.want) })
	}
	tm.run("send-keys", "-t", "game", "q")
	tm.waitFor("the goodbye line", func(string) bool {
		return strings.Contains(history(), "Your game is saved; it will be waiting when you come back.")
	})
	t.Logf("transcript through OpenSSH:\n%s", strings.TrimRight(history(), "\n"))
}
