package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// terminal is OpenSSH's ssh on a PTY this test reads and writes itself:
// the terminal's side, which can answer the screen's queries, or not, as
// a given terminal would.
type terminal struct {
	t   *testing.T
	pty *os.File
	cmd *exec.Cmd

	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

// startTerminal runs ssh (the words of command) on an 80×24 PTY.
func startTerminal(t *testing.T, command string, env ...string) *terminal {
	t.Helper()
	words := strings.Fields(command)
	cmd := exec.Command(words[0], words[1:]...)
	cmd.Env = append(os.Environ(), append([]string{"TERM=xterm-256color"}, env...)...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	tm := &terminal{t: t, pty: f, cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(tm.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
		<-tm.done
	})
	return tm
}

func (tm *terminal) output() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.String()
}

// waitFor waits until the output holds s.
func (tm *terminal) waitFor(what, s string) {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(tm.output(), s) {
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out waiting for %s (%q); output:\n%q", what, s, tm.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// typeIn writes what the terminal sends: keys, or answers to queries.
func (tm *terminal) typeIn(s string) {
	tm.t.Helper()
	if _, err := tm.pty.Write([]byte(s)); err != nil {
		tm.t.Fatal(err)
	}
}

// An empty cell's background, as it is drawn in true colour (#cdc1b4)
// and in 256 colours. A fresh board always has 14 empty cells, where a
// given tile may be missing: both starting tiles are 4s once in a hundred
// games.
const (
	emptyTrueColour = "48;2;205;193;180"
	emptyPalette    = "48;5;180"
)

// TestOpenSSHTrueColour: OpenSSH forwards no COLORTERM, so the screen
// asks the terminal. A terminal that answers XTGETTCAP RGB gets true
// colour; one that answers nothing gets 256 colours once the short wait
// is over; one that answers only the device attributes gets 256 colours
// at once.
func TestOpenSSHTrueColour(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	p := startProcess(t, buildBinary(t), filepath.Join(t.TempDir(), "data"))
	tests := []struct {
		name   string
		answer string // to the screen's queries; "" answers nothing
		want   string // an empty cell's background
	}{
		{"XTGETTCAP RGB", "\x1bP1+r524742=38\x1b\\\x1b[?62;22c", emptyTrueColour},
		{"DECRQSS", "\x1bP1$r0;48:2::1:2:3m\x1b\\\x1b[?62;22c", emptyTrueColour},
		{"device attributes only", "\x1b[?62;22c", emptyPalette},
		{"nothing", "", emptyPalette},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := startTerminal(t, openSSHCommand(t, sshPath, p.addr)())
			term.waitFor("the queries", "\x1b[c")
			if !strings.Contains(term.output(), "\x1bP+q524742;5463\x1b\\") {
				t.Fatalf("the screen does not ask XTGETTCAP: %q", term.output())
			}
			if tt.answer != "" {
				term.typeIn(tt.answer)
			}
			// The board's empty cells, not only the header: the header is
			// written first, and a frame may come in several reads.
			term.waitFor("the board's empty cells", tt.want)
			out := frames(term.output())
			if !strings.Contains(out, tt.want) {
				t.Errorf("empty cells are not drawn with %q: %q", tt.want, out)
			}
			if tt.want == emptyPalette && strings.Contains(out, "48;2;") {
				t.Errorf("true colour without a terminal that said so: %q", out)
			}
			term.typeIn("q")
			term.waitFor("the goodbye", "saved")
		})
	}
}

// frames is the output from the first frame on, after the queries (one of
// which sets a true-colour background to ask about it).
func frames(out string) string {
	if i := strings.Index(out, "\x1b[2J"); i >= 0 {
		return out[i:]
	}
	return out
}

// TestTmuxColourEnvironment: what the README says about passing COLORTERM
// and NO_COLOR with OpenSSH's SetEnv: tmux answers none of the screen's
// colour queries, so without them the game is drawn in 256 colours, with
// COLORTERM=truecolor in true colour, and with NO_COLOR without colour.
// (ssh runs with TERM=xterm-256color: under TERM=tmux-* the server, as
// colorprofile does, does not take COLORTERM at its word.)
func TestTmuxColourEnvironment(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	p := startProcess(t, buildBinary(t), filepath.Join(t.TempDir(), "data"))
	sshCmd := openSSHCommand(t, sshPath, p.addr)
	for _, tt := range []struct {
		name, option string
		want         string // in the raw output
		not          []string
		noColour     bool // no SGR sequence sets a colour
	}{
		{"plain", "", emptyPalette, []string{"48;2;"}, false},
		{"SetEnv COLORTERM", "-o SetEnv=COLORTERM=truecolor", emptyTrueColour, nil, false},
		{"SetEnv NO_COLOR", "-o SetEnv=NO_COLOR=1", "┌──────┐", []string{"48;5;", "48;2;"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tm := newTmux(t)
			tm.newSession("sleep 0.5; TERM=xterm-256color " + strings.Replace(sshCmd(), " -t ", " -t "+tt.option+" ", 1) + "; sleep 60")
			raw := tm.pipePane("game")
			tm.waitFor("the game screen", func(s string) bool { return movesOn(s) >= 0 })
			// tmux copies the pane's output to the file through a cat of
			// its own, which may be behind what the pane shows.
			out := frames(rawUntil(raw, func(out string) bool { return strings.Contains(frames(out), tt.want) }))
			if !strings.Contains(out, tt.want) {
				t.Errorf("the screen lacks %q: %q", tt.want, out)
			}
			for _, n := range tt.not {
				if strings.Contains(out, n) {
					t.Errorf("the screen holds %q: %q", n, out)
				}
			}
			if c := colourSGR(out); tt.noColour && c != "" {
				t.Errorf("the screen sets a colour, %q: %q", c, out)
			}
		})
	}
}

// colourSGR is the first SGR sequence in out that sets a colour (30–38,
// 40–48, 90–97, 100–107), or "". Cursor moves such as CSI 4 B are not SGR.
func colourSGR(out string) string {
	for _, m := range sgrPattern.FindAllStringSubmatch(out, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			if n, err := strconv.Atoi(p); err == nil && (n >= 30 && n <= 38 || n >= 40 && n <= 48 || n >= 90 && n <= 97 || n >= 100 && n <= 107) {
				return m[0]
			}
		}
	}
	return ""
}

var sgrPattern = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)
