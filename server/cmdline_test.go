package server_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// whoamiName is the name `whoami` gives.
func whoamiName(t *testing.T, c *gossh.Client) string {
	t.Helper()
	r := run(t, c, "whoami", "")
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "name" {
			return f[1]
		}
	}
	t.Fatalf("whoami: %+v", r)
	return ""
}

// TestCommandLineWords: an exec command's line is split by a shell's
// quoting rules, an empty quoted word included, and a line whose quoting
// is broken runs nothing. The splitter this replaced dropped empty words
// (`settings theme ""` listed the theme rather than clearing it, `link ""`
// made a code) and ran a broken line up to the break (`name "bob` renamed
// the player, and used up the day's rename).
func TestCommandLineWords(t *testing.T) {
	ts := startServer(t, noCaps, func(c *server.Config) { c.Limits.SessionRatePerConn = 0 })
	c := ts.dial(t, "ann", newKey(t))

	if r := run(t, c, "settings theme light", ""); r.code != wire.ExitOK {
		t.Fatalf("settings theme light: %+v", r)
	}
	if r := run(t, c, `settings theme ""`, ""); r.code != wire.ExitOK {
		t.Fatalf(`settings theme "": %+v`, r)
	}
	if f := strings.Fields(run(t, c, "settings theme", "").stdout); len(f) < 2 || f[1] != "default" {
		t.Errorf(`settings theme "" left the theme %q, want it cleared`, f)
	}

	for _, cmd := range []string{`name ""`, `link ""`} {
		r := run(t, c, cmd, "")
		if r.code != wire.ExitUsage || r.stderr == "" || r.stdout != "" {
			t.Errorf("%s: %+v; want a refusal on stderr and status %d", cmd, r, wire.ExitUsage)
		}
	}

	for _, cmd := range []string{`name "bob`, `name 'bob`, `name bob\`} {
		r := run(t, c, cmd, "")
		if r.code != wire.ExitUsage || !strings.Contains(r.stderr, "cannot read the command line") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: %+v; want one line saying why and status %d", cmd, r, wire.ExitUsage)
		}
	}
	if name := whoamiName(t, c); name != "ann" {
		t.Errorf("after the broken lines the name is %q, want ann", name)
	}
	if r := run(t, c, `name "Ann B"`, ""); r.code != wire.ExitOK || !strings.Contains(r.stdout, "Ann B") {
		t.Errorf(`name "Ann B": %+v`, r)
	}
}

// TestLongCommandLine: a command line of 200,000 bytes costs what its
// length does, not its square, and its echo is cut. The splitter this
// replaced grew each word a character at a time: such a line, sent by a
// guest, took many seconds of CPU and gigabytes of garbage, and the
// unknown command was written back whole.
func TestLongCommandLine(t *testing.T) {
	ts := startServer(t)
	c := ts.dialGuest(t)
	long := strings.Repeat("a", 200_000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := run(t, c, long, "")
	runtime.ReadMemStats(&after)
	if r.code != wire.ExitUsage || !strings.Contains(r.stderr, "unknown command") || len(r.stderr) > 200 {
		t.Errorf("a command of %d bytes: status %d, stderr %.120q (%d bytes); want unknown command, cut, status %d", len(long), r.code, r.stderr, len(r.stderr), wire.ExitUsage)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 200<<20 {
		t.Errorf("a command of %d bytes: the process allocated %d MB meanwhile", len(long), got>>20)
	}
}

// TestCommandLineMistakesShownEscaped: what a client typed comes back in
// a mistake's line escaped and cut, for every command and for admin
// commands, and the mistake is one line (then the usage, if any): an unknown
// flag's name was written back as it came, so that a newline split the
// line and a terminal's controls (a title, a clear, a clipboard write)
// reached the player's terminal.
func TestCommandLineMistakesShownEscaped(t *testing.T) {
	md := startModerated(t)
	c := md.dial(t, "p", newKey(t))
	long := strings.Repeat("a", 20_000)
	for _, tt := range []struct {
		client *gossh.Client
		cmd    string
	}{
		{c, "scores '--\x1b]0;pwned\x07\x1b[2J\u202e'"},
		{c, "scores '--x\x1b[31m=1'"},
		{c, "scores '---\x1b]52;c;aGk=\x07'"},
		{c, "help '--\u009b2J'"},
		{c, "whoami \"--a\nb\""},
		{c, "scores --size '\x1b[2J9'"},
		{c, long},
		{c, "scores --" + long},
		{c, "scores ---" + long},
		{c, "'" + long + "\x1b[2J"},
		{md.admin, "admin bans \"--a\nb\""},
		{md.admin, "admin bans '--\x1b[31m'"},
		{md.admin, "admin bans --limit '\x1b[2J'"},
	} {
		r := run(t, tt.client, tt.cmd, "")
		first, usage, _ := strings.Cut(r.stderr, "\n")
		if r.code != wire.ExitUsage || len(first) > 200 || usage != "" && !strings.HasPrefix(usage, "usage: ") || strings.ContainsFunc(r.stderr, hostile) {
			t.Errorf("%.60q: status %d, stderr %.300q (%d bytes); want status %d and the mistake escaped and cut on one line, then the usage",
				tt.cmd, r.code, r.stderr, len(r.stderr), wire.ExitUsage)
		}
	}
}

// hostile reports a character that could act on a terminal or reorder
// text: controls (but a line feed), C1 controls, bidi overrides.
func hostile(r rune) bool {
	return r != '\n' && (r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069)
}

// TestAdminMistakesLikeTheOthers: `admin` alone is a mistake told on
// stderr (it was its usage on stdout), and an admin command's unknown
// flag is worded as every other command words it.
func TestAdminMistakesLikeTheOthers(t *testing.T) {
	md := startModerated(t)
	if r := run(t, md.admin, "admin", ""); r.code != wire.ExitUsage || r.stderr == "" || r.stdout != "" {
		t.Errorf("admin alone: %+v; want status %d and the usage on stderr", r, wire.ExitUsage)
	}
	if r := md.adminRun(t, "bans --bogus", wire.ExitUsage); !strings.Contains(r.stderr, "unknown flag --bogus") {
		t.Errorf("admin bans --bogus: stderr %q; want unknown flag --bogus", r.stderr)
	}
}
