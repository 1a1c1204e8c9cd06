package server_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ssh2048/ssh2048/wire"
)

// helpEntries is `help`'s listing by command: each entry's lines, from
// the one that names the command to the next.
func helpEntries(help string) map[string]string {
	entries := map[string]string{}
	var name string
	for _, line := range strings.Split(help, "\n") {
		switch {
		case strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   "):
			name, _, _ = strings.Cut(strings.TrimSpace(line), " ")
			entries[name] = line
		case strings.HasPrefix(line, "   ") && name != "":
			entries[name] += "\n" + line
		default:
			name = ""
		}
	}
	return entries
}

var flagLine = regexp.MustCompile(`(?m)^  -+([a-z-]+)`)

// TestHelpListsEveryFlag: `help` names every flag each command's --help
// shows (it left out `scores --offset`), each --help writes its flags as
// --name (not -name beside a usage line with --name), and neither is
// wider than 80 columns, where a terminal would cut a word.
func TestHelpListsEveryFlag(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "h", newKey(t))
	help := run(t, c, "help", "").stdout
	entries := helpEntries(help)
	if len(entries) < 10 {
		t.Fatalf("help lists %d commands:\n%s", len(entries), help)
	}
	texts := map[string]string{"help": help}
	for name, entry := range entries {
		r := run(t, c, name+" --help", "")
		if r.code != 0 {
			t.Errorf("%s --help: %+v", name, r)
			continue
		}
		texts[name+" --help"] = r.stdout
		for _, m := range flagLine.FindAllStringSubmatch(r.stdout, -1) {
			if !strings.HasPrefix(m[0], "  --") {
				t.Errorf("%s --help writes a flag with one dash: %q", name, m[0])
			}
			if !strings.Contains(entry, "--"+m[1]) {
				t.Errorf("help's entry for %s leaves out --%s:\n%s", name, m[1], entry)
			}
		}
	}
	texts["scores --bogus"] = run(t, c, "scores --bogus", "").stderr
	for what, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			if w := ansi.StringWidth(line); w > 80 {
				t.Errorf("%s: a line of %d columns: %q", what, w, line)
			}
		}
	}
}

// TestHelpNamesEveryExitStatus: `help`'s last paragraph names every
// status a session over SSH can end with: wire's, but for 8 (a record
// newer than the binary, which only the local `ssh2048 verify FILE`
// meets) and 12 (the admin commands', which help keeps unknown to
// everyone: TestAdminIsUnknownToOthers). Scripts read it as the
// contract README.md's table is.
func TestHelpNamesEveryExitStatus(t *testing.T) {
	ts := startServer(t)
	help := run(t, ts.dial(t, "h", newKey(t)), "help", "").stdout
	_, statuses, ok := strings.Cut(help, "Exit status")
	if !ok {
		t.Fatalf("help has no paragraph of exit statuses:\n%s", help)
	}
	statuses = strings.Join(strings.Fields(statuses), " ")
	for _, code := range []int{
		wire.ExitOK, wire.ExitError, wire.ExitUsage, wire.ExitTakenOver, wire.ExitRestart, wire.ExitRefuted,
		wire.ExitNotFound, wire.ExitInPlay, wire.ExitInactive, wire.ExitRoom, wire.ExitBanned,
		wire.ExitFlooded, wire.ExitRefused, wire.ExitMerge,
	} {
		if !regexp.MustCompile(`(^|[:,] )` + strconv.Itoa(code) + ` [a-z]`).MatchString(statuses) {
			t.Errorf("help does not name status %d:\n%s", code, statuses)
		}
	}
}
