package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/server/servertest"
	gossh "golang.org/x/crypto/ssh"
)

// runOn runs an exec command on a node and returns its stdout, stderr
// and status.
func runOn(t *testing.T, c *gossh.Client, cmd string) (string, string, int) {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out, errOut bytes.Buffer
	s.Stdout, s.Stderr = &out, &errOut
	err = s.Run(cmd)
	code := exitStatus(err)
	if err == nil {
		code = 0
	}
	return out.String(), errOut.String(), code
}

// eventually retries check until it holds (another node learns of a ban
// from the bus, or at its next refresh), failing after a generous while.
func eventually(t *testing.T, what string, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not so after 20s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestClusterBans: on two nodes of one PostgreSQL, the admin of the
// --admin-keys file bans on node A; node B refuses the banned key with
// its line and status, and the banned range before the handshake, while
// others play on; unban on node B lets the key back on node A; a game
// hidden on one node leaves the other's scores --json and comes back with
// unhide; the audit log has every action, whichever node wrote it.
func TestClusterBans(t *testing.T) {
	admin := servertest.NewKey(t)
	keys := filepath.Join(t.TempDir(), "admins")
	if err := os.WriteFile(keys, gossh.MarshalAuthorizedKey(admin.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, "SSH2048_ADMIN_KEYS="+keys)
	var hk string
	onA := dialRetryAs(t, c.addrs[0], "root", admin, &hk)
	eve := servertest.NewKey(t)
	if _, stderr, code := runOn(t, dialRetryAs(t, c.addrs[1], "eve", eve, &hk), "scores"); code != 0 {
		t.Fatalf("eve on node B: %d %s", code, stderr)
	}
	bob := dialRetryAs(t, c.addrs[1], "bob", servertest.NewKey(t), &hk)
	b := startBotCommand(t, bob, "bot")
	st := b.read(t)

	if out, stderr, code := runOn(t, onA, `admin ban eve --show-reason --reason "spam"`); code != 0 || !strings.Contains(out, "banned player") {
		t.Fatalf("ban on node A: %d %q %q", code, out, stderr)
	}
	eventually(t, "eve refused on node B", func() bool {
		_, stderr, code := runOn(t, dialRetryAs(t, c.addrs[1], "eve", eve, &hk), "scores")
		return code == 11 && strings.Contains(stderr, "banned from this server until lifted: spam.")
	})
	for _, d := range cycle {
		st = b.move(t, d) // bob's session on node B never noticed
	}
	if st.Moves == 0 {
		t.Fatalf("bob's moves after the ban: %+v", st)
	}

	if _, stderr, code := runOn(t, onA, `admin ban 127.0.0.64/30 --reason "a scanner"`); code != 0 {
		t.Fatalf("range ban: %d %s", code, stderr)
	}
	eventually(t, "a banned range refused by node B before the handshake", func() bool {
		raw := servertest.DialRaw(t, c.addrs[1], "127.0.0.65")
		_ = raw.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, _ := io.ReadAll(raw)
		return strings.HasPrefix(string(got), "ssh2048: connections from your network are banned")
	})

	onB := dialRetryAs(t, c.addrs[1], "root", admin, &hk)
	if _, stderr, code := runOn(t, onB, `admin unban eve --reason "appealed"`); code != 0 {
		t.Fatalf("unban on node B: %d %s", code, stderr)
	}
	eventually(t, "eve back on node A", func() bool {
		_, _, code := runOn(t, dialRetryAs(t, c.addrs[0], "eve", eve, &hk), "scores")
		return code == 0
	})

	// A game played to its end on node B, hidden on node A: node B's
	// scores --json no longer has it, and has it back after unhide.
	over := startBotCommand(t, dialRetryAs(t, c.addrs[1], "carl", servertest.NewKey(t), &hk), "bot --size 3")
	over.read(t)
	for i := 0; ; i++ {
		if _, err := over.in.Write([]byte(cycle[i%4] + "\n")); err != nil {
			t.Fatal(err)
		}
		line, err := over.out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("bot output: %v", err)
		}
		if strings.Contains(string(line), `"over":true`) {
			break
		}
	}
	viewer := dialRetryAs(t, c.addrs[1], "viewer", servertest.NewKey(t), &hk)
	board := func() string {
		out, _, _ := runOn(t, viewer, "scores --json --bots --size 3")
		return out
	}
	var rows []struct {
		GameID int64 `json:"game_id"`
	}
	if err := jsonUnmarshal([]byte(board()), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("3×3 bot board on node B: %v %+v", err, rows)
	}
	game := fmt.Sprintf("%d", rows[0].GameID)
	if _, stderr, code := runOn(t, onA, "admin hide "+game+" --reason script"); code != 0 {
		t.Fatalf("hide on node A: %d %s", code, stderr)
	}
	if got := board(); strings.Contains(got, `"game_id":`+game) {
		t.Fatalf("node B's board after the hide: %s", got)
	}
	if _, stderr, code := runOn(t, onB, "admin unhide "+game+" --reason person"); code != 0 {
		t.Fatalf("unhide on node B: %d %s", code, stderr)
	}
	if got := board(); !strings.Contains(got, `"game_id":`+game) || !strings.Contains(got, `"rank":1`) {
		t.Fatalf("node B's board after the unhide: %s", got)
	}

	out, _, _ := runOn(t, onA, "admin audit")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 5 || !strings.Contains(lines[2], ": unban player #") ||
		!strings.Contains(lines[3], ": hide game "+game) || !strings.Contains(lines[4], ": unhide game "+game) {
		t.Fatalf("audit across the nodes:\n%s", out)
	}
}
