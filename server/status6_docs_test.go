package server_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/wire"
)

// TestStatus6Documented: the account commands answer a guest with
// status 6 (docs/accounts.md: "the account commands say so (status 6)"),
// and `keys remove FP` of a key not the account's with 6 too (README's
// command table: "6 not yours"). Both status tables, which promise every
// status a command returns, say of 6 only: "no such game; `watch`: ...;
// `history`: a guest has no games": they must say these cases too.
func TestStatus6Documented(t *testing.T) {
	ts := startServer(t)
	guest := ts.dialGuest(t)
	for _, cmd := range []string{"whoami", "name", "name zed", "link", "keys", "keys remove SHA256:abc"} {
		if r := run(t, guest, cmd, ""); r.code != wire.ExitNotFound {
			t.Errorf("guest %q: status %d, stderr %q", cmd, r.code, r.stderr)
		}
	}
	if r := run(t, ts.dial(t, "ann", newKey(t)), "keys remove SHA256:not-a-key-of-ann", ""); r.code != wire.ExitNotFound {
		t.Errorf("keys remove, not ann's key: status %d, stderr %q", r.code, r.stderr)
	}
	for _, doc := range []string{"../README.md", "../docs/bot-protocol.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		var row string
		for line := range strings.Lines(string(b)) {
			if strings.HasPrefix(line, "| `6` |") {
				row = line
			}
		}
		if !strings.Contains(row, "keys") || !strings.Contains(row, "whoami") {
			t.Errorf("%s: status 6 is told only as %q: nothing of the account commands (a guest's, or keys remove of a key not yours)", doc, strings.TrimSpace(row))
		}
	}
}
