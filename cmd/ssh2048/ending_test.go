package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pipePane sends everything the pane's program writes to a file, from
// now on: the raw bytes, escape sequences and all, that capture-pane has
// already interpreted.
func (tm *tmux) pipePane(target string) (raw func() string) {
	tm.t.Helper()
	file := filepath.Join(tm.t.TempDir(), "pane.raw")
	tm.run("pipe-pane", "-t", target, "-o", "cat >> "+file)
	return func() string {
		b, _ := os.ReadFile(file)
		return string(b)
	}
}

// rawUntil waits until raw's output satisfies ok, at most as long as
// tmux.waitFor, and returns it, satisfying ok or not: tmux copies the
// pane's output to the file through a cat of its own, which may be behind
// what the pane shows.
func rawUntil(raw func() string, ok func(out string) bool) string {
	deadline := time.Now().Add(15 * time.Second)
	for {
		out := raw()
		if ok(out) || time.Now().After(deadline) {
			return out
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// paneState is what tmux knows of the terminal state of the pane.
func (tm *tmux) paneState(target string) (altScreen, cursor bool, title string) {
	tm.t.Helper()
	f := strings.SplitN(strings.TrimRight(tm.run("display", "-p", "-t", target, "#{alternate_on} #{cursor_flag} #{pane_title}"), "\n"), " ", 3)
	return f[0] == "1", f[1] == "1", f[2]
}

var exitRe = regexp.MustCompile(`EXIT=(\d+)`)

// childPID is the pid of the child of parent whose command is name.
func childPID(t *testing.T, parent int, name string) int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < 0 || s[open+1:end] != name {
			continue
		}
		f := strings.Fields(s[end+1:])
		if ppid, _ := strconv.Atoi(f[1]); ppid == parent {
			pid, _ := strconv.Atoi(strings.Fields(s)[0])
			return pid
		}
	}
	t.Fatalf("no %s under pid %d", name, parent)
	return 0
}

// TestTmuxSessionEnds: every way a game screen ends, played with OpenSSH
// in tmux, gives the player's terminal back as it was (main screen, cursor
// shown, their window title), leaves one line that says why, wrapped to
// the window, and exits with the documented status. The raw bytes the
// screen wrote last are checked too: the pen reset, the alternate screen
// left, the cursor shown and the title popped, in that order, then the
// line.
func TestTmuxSessionEnds(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	bin := buildBinary(t)
	tests := []struct {
		name   string
		env    []string // the server's
		end    func(t *testing.T, tm *tmux, p *process, sshCmd func(...string) string)
		status int
		line   string
		exits  bool // the server exits
	}{
		{name: "quit", status: 0, line: "Your game is saved; it will be waiting when you come back.",
			end: func(t *testing.T, tm *tmux, _ *process, _ func(...string) string) {
				tm.run("send-keys", "-t", "game", "q")
			}},
		{name: "idle timeout", env: []string{"SSH2048_IDLE_TIMEOUT=2s"}, status: 9,
			line: "No input for 2 seconds, so the server closed this session. Your game is saved; reconnect to carry on.",
			end:  func(*testing.T, *tmux, *process, func(...string) string) {}},
		{name: "keepalive loss", env: []string{"SSH2048_KEEPALIVE_INTERVAL=300ms", "SSH2048_KEEPALIVE_MAX=2"}, status: 9,
			line: "Your connection stopped answering, so the server closed this session. Your game is saved; reconnect to carry on.",
			end: func(t *testing.T, tm *tmux, p *process, _ func(...string) string) {
				// A client that stops: it answers no keepalive, but its
				// kernel keeps what the server sends for when it wakes.
				shell, _ := strconv.Atoi(strings.TrimSpace(tm.run("display", "-p", "-t", "game", "#{pane_pid}")))
				pid := childPID(t, shell, "ssh")
				if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
					t.Fatal(err)
				}
				defer syscall.Kill(pid, syscall.SIGCONT)
				deadline := time.Now().Add(15 * time.Second)
				for !strings.Contains(p.logs.String(), `"msg":"keepalive timeout"`) {
					if time.Now().After(deadline) {
						t.Fatalf("no keepalive timeout logged:\n%s", p.logs.String())
					}
					time.Sleep(50 * time.Millisecond)
				}
				time.Sleep(500 * time.Millisecond) // the screen's goodbye, on its way
			}},
		{name: "taken over", status: 3,
			line: "Your 4×4 game was opened in a newer session, which takes over from here; nothing was lost.",
			end: func(t *testing.T, tm *tmux, _ *process, sshCmd func(...string) string) {
				// A second window opens another size unless asked for this one.
				tm.run("new-window", "-d", "-t", "game", "-n", "newer", sshCmd("play", "--size", "4")+"; sleep 60")
			}},
		{name: "server restart", status: 4, exits: true,
			line: "The server is restarting; your game is saved. Reconnect in a moment to carry on.",
			end: func(t *testing.T, _ *tmux, p *process, _ func(...string) string) {
				if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProcess(t, bin, filepath.Join(t.TempDir(), "data"), tt.env...)
			sshCmd := openSSHCommand(t, sshPath, p.addr)
			tm := newTmux(t)
			// The pipe is set up before ssh starts; the player's own title
			// is set first, to be found again at the end.
			tm.newSession(`printf '\033]2;my shell\007'; sleep 0.5; ` + sshCmd() + `; echo EXIT=$?; sleep 60`)
			raw := tm.pipePane("game")
			tm.waitFor("the game screen", func(s string) bool { return movesOn(s) >= 0 })
			if alt, cursor, title := tm.paneState("game"); !alt || cursor || title == "my shell" {
				t.Fatalf("while playing: alternate screen %v, cursor %v, title %q", alt, cursor, title)
			}
			tm.run("send-keys", "-t", "game", "Left", "Up")
			tt.end(t, tm, p, sshCmd)
			screen := tm.waitFor("the exit status", func(s string) bool { return exitRe.MatchString(s) })
			if tt.exits {
				select {
				case <-p.exited: // and the clean-up knows
				case <-time.After(15 * time.Second):
					t.Fatal("the server did not exit")
				}
			}

			if got, _ := strconv.Atoi(exitRe.FindStringSubmatch(screen)[1]); got != tt.status {
				t.Errorf("ssh exit status %d, want %d; screen:\n%s", got, tt.status, screen)
			}
			// The line, wrapped by words at 80 columns, just above the status.
			lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
			var shown []string
			for i := len(lines) - 2; i >= 0 && strings.TrimSpace(lines[i]) != ""; i-- {
				shown = append([]string{strings.TrimRight(lines[i], " ")}, shown...)
			}
			if got := strings.Join(shown, " "); got != tt.line {
				t.Errorf("the last line is %q, want %q; screen:\n%s", got, tt.line, screen)
			}
			for _, l := range shown {
				if strings.HasPrefix(l, " ") || len([]rune(l)) > 80 {
					t.Errorf("the line is not wrapped by words: %q", shown)
				}
			}
			if alt, cursor, title := tm.paneState("game"); alt || !cursor || title != "my shell" {
				t.Errorf("after the end: alternate screen %v, cursor shown %v, title %q; want false, true, %q", alt, cursor, title, "my shell")
			}

			lastLines := strings.Join(shown, "\r\n") + "\r\n"
			out := rawUntil(raw, func(out string) bool {
				leave := strings.LastIndex(out, "\x1b[?1049l")
				return leave >= 0 && strings.Contains(out[leave:], lastLines)
			})
			leave := strings.LastIndex(out, "\x1b[?1049l")
			if leave < 0 {
				t.Fatalf("the raw output never leaves the alternate screen: %q", out[max(0, len(out)-300):])
			}
			if !strings.HasSuffix(out[:leave], "\x1b[m") {
				t.Errorf("the pen is not reset before leaving the alternate screen: %q", out[max(0, leave-40):leave])
			}
			after := out[leave+len("\x1b[?1049l"):]
			want := "\x1b[?25h\x1b[23;0t" + lastLines
			if !strings.HasPrefix(after, want) {
				t.Errorf("the raw bytes after leaving the alternate screen are\n%q\nwant them to start\n%q", after, want)
			}
			if n := strings.Count(out, "\x1b[?1049h"); n != 1 {
				t.Errorf("the alternate screen was entered %d times", n)
			}
		})
	}
}

// TestOpenSSHBotIdle: a bot that goes quiet is ended with a line on
// stderr and status 9, not a connection closed under it (255 in OpenSSH,
// with nothing said).
func TestOpenSSHBotIdle(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	p := startProcess(t, buildBinary(t), filepath.Join(t.TempDir(), "data"), "SSH2048_IDLE_TIMEOUT=1s")
	args := strings.Fields(strings.Replace(openSSHCommand(t, sshPath, p.addr)("bot"), " -t ", " -T ", 1))
	cmd := exec.Command(args[0], args[1:]...)
	stdin, err := cmd.StdinPipe() // kept open: the bot is only quiet
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the quiet bot was not ended")
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		t.Error("ssh bot exit status 0, want 9")
	case !errors.As(err, &ee):
		t.Fatal(err)
	case ee.ExitCode() != 9:
		t.Errorf("ssh bot exit status %d, want 9", ee.ExitCode())
	}
	if want := "ssh2048: No input for 1 second, so the server closed this session."; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
	if !strings.Contains(out.String(), `"board"`) {
		t.Errorf("stdout %q, want the state line first", out.String())
	}
}
