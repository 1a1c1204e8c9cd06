package flagtext

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func TestWrap(t *testing.T) {
	tests := []struct {
		name, in    string
		width       int
		first, rest string
		want        string
	}{
		{"fits", "a short line", 80, "", "", "a short line"},
		{"at a space", "usage: scores [--size N] [--date YYYY-MM-DD]", 30, "", "    ",
			"usage: scores [--size N]\n    [--date YYYY-MM-DD]"},
		{"exactly the width", "aaaa bbbb", 9, "", "", "aaaa bbbb"},
		{"a word too long stays whole", "a bbbbbbbbbbbb c", 5, "", "", "a\nbbbbbbbbbbbb\nc"},
		{"spaces kept between words", "  scores    the leaderboard", 80, "", "", "  scores    the leaderboard"},
		{"each line on its own", "one two\nthree four", 7, "> ", "  ", "> one\n  two\n> three\n  four"},
		{"wide characters count as two", "ab 漢字 cd", 7, "", "", "ab 漢字\ncd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Wrap(tt.in, tt.width, tt.first, tt.rest); got != tt.want {
				t.Fatalf("Wrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
			}
		})
	}
}

func TestPrintDefaults(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Bool("bots", false, "the bot leaderboard")
	fs.String("data", "data", "the data directory (default $STATE_DIRECTORY, else ./data)")
	fs.String("listen", ":23234", "address to listen on")
	fs.Int("size", 4, "board `N`, 3 to 8")
	fs.Int("limit", 0, "how many")
	fs.Duration("wait", time.Second, strings.Repeat("a long help text that goes on ", 5))
	var b strings.Builder
	PrintDefaults(&b, fs, 60)
	got := b.String()
	for _, want := range []string{
		"  --bots\n        the bot leaderboard\n",
		"  --data string\n        the data directory (default $STATE_DIRECTORY, else\n        ./data)\n",
		"  --listen string\n        address to listen on (default \":23234\")\n",
		"  --size N\n        board N, 3 to 8 (default 4)\n",
		"  --limit int\n        how many\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") {
			t.Errorf("a flag with one dash: %q", line)
		}
		if ansi.StringWidth(line) > 60 {
			t.Errorf("line wider than 60: %q", line)
		}
	}
}

func TestError(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int("games", 1, "")
	fs.Bool("json", false, "")
	fs.String("name", "", "")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "unknown flag --nope"},
		{[]string{"-games", "x"}, `invalid value "x" for --games: parse error`},
		{[]string{"--json=maybe"}, `invalid boolean value "maybe" for --json: parse error`},
		{[]string{"--name"}, "flag needs an argument: --name"},
		// What the client typed is shown escaped and cut wherever it is
		// more than a plain name: it may hold a terminal's controls, a
		// newline, or 100 KB.
		{[]string{"--a\nb"}, `unknown flag "--a\nb"`},
		{[]string{"--\x1b[31mred=1"}, `unknown flag "--\x1b[31mred"`},
		{[]string{"--\u202eevil"}, `unknown flag "--\u202eevil"`},
		{[]string{"---\x1b]0;t\a"}, `bad flag syntax: "---\x1b]0;t\a"`},
		{[]string{"---x"}, "bad flag syntax: ---x"},
		{[]string{"--" + strings.Repeat("a", 100)}, `unknown flag "--` + strings.Repeat("a", 38) + `"`},
		{[]string{"--games", "\x1b[2J" + strings.Repeat("9", 100)}, `invalid value "\x1b[2J` + strings.Repeat("9", 36) + `" for --games: parse error`},
	}
	for _, tt := range tests {
		err := fs.Parse(tt.args)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.args, err)
			}
			continue
		}
		if err == nil || Error(err) != tt.want {
			t.Errorf("%q: Error(%v) = %q, want %q", tt.args, err, Error(err), tt.want)
		}
	}
	// The rest of a message, which a flag's own check writes, keeps its
	// quotes and loses its controls.
	if got, want := Error(errors.New("invalid value \"x\" for flag -mode: want \"tui\"\x1b[2J\n")), `invalid value "x" for --mode: want "tui"\x1b[2J\n`; got != want {
		t.Errorf("Error = %q, want %q", got, want)
	}
	// A value that looks like a flag's name is left as it is.
	if got, want := Error(errors.New(`invalid value "for flag -x" for flag -n: bad for flag -y`)), `invalid value "for flag -x" for --n: bad for flag -y`; got != want {
		t.Errorf("Error = %q, want %q", got, want)
	}
}
