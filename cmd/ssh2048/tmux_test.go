package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// tmux drives one terminal: OpenSSH's ssh -t inside a tmux server of the
// test's own (its own socket, so a developer's tmux is never touched).
type tmux struct {
	t      *testing.T
	socket string
}

func newTmux(t *testing.T) *tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (apt-get install tmux)")
	}
	tm := &tmux{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *tmux) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// newSession starts command in an 80×24 window named "game". Under a
// heavily loaded machine a fresh tmux server has been seen to die while
// starting ("server exited unexpectedly"), so a failed start is retried.
func (tm *tmux) newSession(command string) {
	tm.t.Helper()
	tm.newSessionAt(80, 24, command)
}

// newSessionAt is newSession in a w×h window.
func (tm *tmux) newSessionAt(w, h int, command string) {
	tm.t.Helper()
	args := []string{"-S", tm.socket, "new-session", "-d", "-s", "game", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "-e", "TERM=xterm-256color", command}
	var out []byte
	var err error
	for range 3 {
		if out, err = exec.Command("tmux", args...).CombinedOutput(); err == nil {
			return
		}
		tm.t.Logf("tmux new-session: %v: %s (retrying)", err, out)
		time.Sleep(time.Second)
	}
	tm.t.Fatalf("tmux new-session: %v\n%s", err, out)
}

// screen returns the visible text of the pane.
func (tm *tmux) screen() string {
	tm.t.Helper()
	return tm.run("capture-pane", "-p", "-t", "game")
}

// waitFor polls the screen until ok accepts it.
func (tm *tmux) waitFor(what string, ok func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := tm.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var movesRe = regexp.MustCompile(`Moves (\d+)`)

// movesOn reads the move counter from the game screen; -1 when not shown.
func movesOn(screen string) int {
	m := movesRe.FindStringSubmatch(screen)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// boardText is the part of the screen between the header and the footer:
// the tiles' numbers in their places.
func boardText(screen string) string {
	lines := strings.Split(screen, "\n")
	var board []string
	for _, l := range lines[1:] {
		if strings.Contains(l, "Moves") || strings.Contains(l, "help") {
			continue
		}
		board = append(board, strings.TrimRight(l, " "))
	}
	return strings.TrimSpace(strings.Join(board, "\n"))
}

// openSSHCommand returns the shell command that logs in as "ada" with a
// fresh key through OpenSSH; extra words (a remote command) follow it.
func openSSHCommand(t *testing.T, sshPath, addr string) func(remote ...string) string {
	t.Helper()
	_, port, _ := net.SplitHostPort(addr)
	keyFile := newKeyFile(t)
	return func(remote ...string) string {
		return fmt.Sprintf("%s -t -p %s -F /dev/null -i %s -o IdentitiesOnly=yes -o StrictHostKeyChecking=no "+
			"-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o PasswordAuthentication=no "+
			"-o KbdInteractiveAuthentication=no ada@127.0.0.1 %s", sshPath, port, keyFile, strings.Join(remote, " "))
	}
}

// newKeyFile writes a fresh ed25519 private key in OpenSSH's format, for
// ssh -i.
func newKeyFile(t *testing.T) string {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return keyFile
}

// TestTmuxTUI plays the game screen the way a person does: OpenSSH's ssh -t
// in an 80×24 terminal, arrow keys, quit, reconnect to the same board, and a
// resize to 20×6 (too small: a message) and back.
func TestTmuxTUI(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	tm := newTmux(t)
	sshCmd := openSSHCommand(t, sshPath, startProcess(t, buildBinary(t), filepath.Join(t.TempDir(), "data")).addr)
	connect := func() string {
		t.Helper()
		tm.newSession(sshCmd() + "; sleep 60")
		return tm.waitFor("the game screen", func(s string) bool { return movesOn(s) >= 0 })
	}

	connect()
	keys := []string{"Left", "Up", "Right", "Down", "Left", "Up", "Left", "Down", "Right", "Up"}
	for _, k := range keys {
		tm.run("send-keys", "-t", "game", k)
	}
	// Keys that change nothing do not count, so wait for the counter to
	// settle rather than for exactly len(keys).
	var played string
	last := -1
	for range 40 {
		played = tm.screen()
		n := movesOn(played)
		if n > 0 && n == last {
			break
		}
		last = n
		time.Sleep(100 * time.Millisecond)
	}
	moves := movesOn(played)
	if moves < 3 {
		t.Fatalf("after %d arrow keys the screen shows %d moves:\n%s", len(keys), moves, played)
	}

	tm.run("send-keys", "-t", "game", "q")
	tm.waitFor("the goodbye line", func(s string) bool { return strings.Contains(s, "saved") })
	tm.run("kill-session", "-t", "game")

	connect()
	// The first frame comes in pieces of a kilobyte, top to bottom, and
	// tmux may show it half drawn: wait for its last line, the keys.
	back := tm.waitFor("the whole first frame", func(s string) bool { return strings.Contains(s, "q quit") })
	if got := movesOn(back); got != moves {
		t.Fatalf("reconnected to %d moves, left at %d:\n%s", got, moves, back)
	}
	if boardText(back) != boardText(played) {
		t.Fatalf("reconnected to another board.\nleft:\n%s\nfound:\n%s", boardText(played), boardText(back))
	}

	tm.run("resize-window", "-t", "game", "-x", "20", "-y", "6")
	small := tm.waitFor("the too-small message", func(s string) bool { return strings.Contains(s, "need") })
	if strings.Contains(small, "Moves") {
		t.Fatalf("20×6 still draws the game:\n%s", small)
	}
	tm.run("send-keys", "-t", "game", "Left") // ignored while the board does not fit
	tm.run("resize-window", "-t", "game", "-x", "80", "-y", "24")
	again := tm.waitFor("the board after growing back", func(s string) bool { return movesOn(s) >= 0 && strings.Contains(s, "q quit") })
	if movesOn(again) != moves || boardText(again) != boardText(played) {
		t.Fatalf("after resizing back:\n%s\nwant the board left at %d moves:\n%s", again, moves, played)
	}

	// The human game is on the leaderboard (TestTmuxAI relies on this
	// query to show that an assisted one is not).
	out, err := exec.Command("sh", "-c", strings.Replace(sshCmd("scores", "--json"), " -t ", " -T ", 1)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"name":"ada"`) || !strings.Contains(string(out), fmt.Sprintf(`"moves":%d`, moves)) {
		t.Fatalf("scores after a human game: %v %s", err, out)
	}
}

// TestTmuxAI asks the AI for a hint and lets it play, over OpenSSH, then
// checks that the game, now assisted, is not ranked among human games.
// The first hint of a ranked game asks first, once; the header then says
// the game is assisted.
func TestTmuxAI(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	tm := newTmux(t)
	sshCmd := openSSHCommand(t, sshPath, startProcess(t, buildBinary(t), filepath.Join(t.TempDir(), "data")).addr)
	tm.newSession(sshCmd() + "; sleep 60")
	tm.waitFor("the game screen", func(s string) bool { return movesOn(s) >= 0 })

	tm.run("send-keys", "-t", "game", "i")
	tm.waitFor("the question first", func(s string) bool { return strings.Contains(s, "Ask the AI?") })
	tm.run("send-keys", "-t", "game", "y")
	hinted := tm.waitFor("a hint", func(s string) bool { return strings.Contains(s, "Hint:") })
	if !strings.Contains(hinted, "4×4 assisted") {
		t.Fatalf("the header does not say the game is assisted:\n%s", hinted)
	}
	// The player's only game no longer ranks: Best and Rank say so, as
	// scores does (checked below), rather than the assisted game's.
	tm.waitFor("Best and Rank without a ranked game", func(s string) bool {
		return strings.Contains(s, "Best –") && strings.Contains(s, "Rank –")
	})

	tm.run("send-keys", "-t", "game", "p")
	playing := tm.waitFor("the AI to play ten moves", func(s string) bool { return movesOn(s) >= 10 })
	tm.run("send-keys", "-t", "game", "p")
	// Once stopped, the counter stays where it is.
	stopped := tm.waitFor("autoplay to stop", func(s string) bool { return !strings.Contains(s, "AI is playing") })
	time.Sleep(500 * time.Millisecond)
	if now := tm.screen(); movesOn(now) != movesOn(stopped) {
		t.Fatalf("the AI kept playing after p: %d moves, then %d", movesOn(stopped), movesOn(now))
	}
	if movesOn(playing) < 10 {
		t.Fatalf("autoplay: %d moves", movesOn(playing))
	}
	tm.run("send-keys", "-t", "game", "q")
	tm.waitFor("the goodbye line", func(s string) bool { return strings.Contains(s, "saved") })
	tm.run("kill-session", "-t", "game")

	out, err := exec.Command("sh", "-c", strings.Replace(sshCmd("scores", "--json"), " -t ", " -T ", 1)).CombinedOutput()
	if err != nil {
		t.Fatalf("scores: %v\n%s", err, out)
	}
	if strings.TrimSpace(string(out)) != "[]" {
		t.Fatalf("an assisted game is on the human leaderboard: %s", out)
	}
}

// TestTmuxAIOff: serve --ai=false (here $SSH2048_AI=false) takes the AI
// keys off the game screen: not in the key line, and i does nothing.
func TestTmuxAIOff(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	p := startProcess(t, buildBinary(t), filepath.Join(t.TempDir(), "data"), "SSH2048_AI=false")
	tm := newTmux(t)
	tm.newSession(openSSHCommand(t, sshPath, p.addr)() + "; sleep 60")
	screen := tm.waitFor("the game screen", func(s string) bool { return movesOn(s) >= 0 })
	if strings.Contains(screen, "hint") || strings.Contains(screen, "autoplay") || !strings.Contains(screen, "q quit") {
		t.Fatalf("the AI keys show with the AI off:\n%s", screen)
	}
	tm.run("send-keys", "-t", "game", "i", "p", "?")
	help := tm.waitFor("the help screen", func(s string) bool { return strings.Contains(s, "esc back") })
	if strings.Contains(help, "Ask the AI") || strings.Contains(help, "hint") {
		t.Fatalf("the AI answers with the AI off:\n%s", help)
	}
}
