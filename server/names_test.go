package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/store"
	gossh "golang.org/x/crypto/ssh"
)

// TestLookAlikeNames is issue 12's impersonation: "swap1" followed by a
// Hangul filler, and "swapl", look like "swap1". Over real SSH, a name is
// one account's (issue 32): the look-alikes of swap1 and a name of
// fillers get generated names (player-…), `scores --json` tells the
// players apart by a stable "player" field, and the text board has no
// look-alike left to tag.
func TestLookAlikeNames(t *testing.T) {
	ts := startServer(t)
	keys := map[string]gossh.Signer{}
	for _, name := range []string{"swap1", "swap1\u3164", "swapl", "carol", "\u3164\u3164\u3164"} {
		keys[name] = newKey(t)
		b := startBot(t, ts.dial(t, name, keys[name]), "")
		b.mustRead()
		// Scores in the order above, best first.
		for moved := 0; moved < 1; {
			for _, d := range []string{"left", "up", "right", "down"} {
				b.send(d)
				if st := b.mustRead(); st.Moved {
					moved++
					break
				}
			}
		}
		b.finish()
	}
	c := ts.dial(t, "viewer", newKey(t))
	var rows []struct{ Name, Player string }
	r := run(t, c, "scores --bots --json", "") // bot games rank on --bots
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 5 {
		t.Fatalf("scores --bots --json: %v %q", err, r.stdout)
	}
	players := map[string]string{}
	names := map[string]int{}
	for _, row := range rows {
		if strings.ContainsRune(row.Name, '\u3164') {
			t.Errorf("a filler survived in %q", row.Name)
		}
		if len(row.Player) != 12 {
			t.Errorf("player %q of %q", row.Player, row.Name)
		}
		if other, dup := players[row.Player]; dup {
			t.Errorf("%q and %q share the player %q", row.Name, other, row.Player)
		}
		players[row.Player] = row.Name
		names[row.Name]++
	}
	generated := 0
	for n, count := range names {
		if strings.HasPrefix(n, store.GeneratedPrefix) {
			generated += count
		}
	}
	if names["swap1"] != 1 || names["carol"] != 1 || generated != 3 {
		t.Fatalf("names %v", names)
	}
	for _, k := range keys {
		fp := gossh.FingerprintSHA256(k.PublicKey())
		if _, ok := players[store.ShortID(fp)]; !ok {
			t.Errorf("no row for %s", fp)
		}
	}

	r = run(t, c, "scores --bots", "")
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && strings.HasPrefix(f[2], "#") {
			t.Errorf("row %q is tagged; no two names look alike", line)
		}
	}
}
