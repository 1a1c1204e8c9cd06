package server_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
)

// TestStderrWrapsAtWords: with a terminal, what a command says on stderr
// is wrapped at spaces to the terminal's width: left to the terminal, a
// line longer than the window was cut inside a word ("YYYY" / "-MM-DD").
// Without one it is the same words, its message on one line.
func TestStderrWrapsAtWords(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "w", newKey(t))
	for _, cmd := range []string{"scores --bogus", "export abc", "scores --size 12345678901234567890", "replay nonsense-that-is-no-game-id"} {
		plain := run(t, c, cmd, "")
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		const width = 50
		if err := s.RequestPty("xterm", 24, width, gossh.TerminalModes{}); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		s.Stdout, s.Stderr = &out, &errOut
		code := exitCode(t, s.Run(cmd))
		s.Close()
		if bare := strings.ReplaceAll(errOut.String(), "\r\n", ""); strings.Contains(bare, "\n") {
			t.Errorf("%s: a line ends without CR LF on a terminal: %q", cmd, errOut.String())
		}
		wrapped := strings.ReplaceAll(errOut.String(), "\r\n", "\n")
		if code != plain.code || strings.Join(strings.Fields(wrapped), " ") != strings.Join(strings.Fields(plain.stderr), " ") {
			t.Errorf("%s: with a terminal, status %d and %q; without, %d and %q", cmd, code, wrapped, plain.code, plain.stderr)
		}
		if longest := slices.MaxFunc(strings.Split(plain.stderr, "\n"), func(a, b string) int {
			return ansi.StringWidth(a) - ansi.StringWidth(b)
		}); ansi.StringWidth(longest) <= width {
			t.Errorf("%s: %q fits %d columns; the test wants a longer line", cmd, plain.stderr, width)
		}
		for _, line := range strings.Split(wrapped, "\n") {
			if w := ansi.StringWidth(line); w > width {
				t.Errorf("%s: a line of %d columns in a window of %d: %q", cmd, w, width, line)
			}
		}
	}
}
