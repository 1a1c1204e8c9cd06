package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// TestAdminOffline: the admin commands run on a data directory with no
// server, write their audit rows as the console, and refuse a directory
// without a database rather than make one.
func TestAdminOffline(t *testing.T) {
	dir := t.TempDir()
	s, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	eve, err := s.UpsertPlayer(context.Background(), "SHA256:eve-key-fingerprint", "ssh-ed25519", "eve")
	if err != nil {
		t.Fatal(err)
	}
	// A game eve played by hand, reviewed (the store keeps a review as it
	// is given), and one not reviewed.
	for _, text := range []string{`{"version":1,"accuracy":75.3}`, ""} {
		g, err := s.NewGame(context.Background(), eve.ID, 4, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.EndGame(context.Background(), g.ID, store.StateOf(g.Engine)); err != nil {
			t.Fatal(err)
		}
		if text != "" {
			if err := s.SaveGameReview(context.Background(), g.ID, review.Version, []byte(text)); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.Close()
	for _, c := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"admin", "ban", "eve", "--for", "1d", "--reason", "spam", "--data", dir}, 0, "banned player #1 eve until ", ""},
		{[]string{"admin", "--data=" + dir, "bans"}, 0, "player #1 eve until ", ""},
		{[]string{"admin", "ban", "eve", "--reason", "again", "--data", dir}, 12, "", "already so"},
		{[]string{"admin", "grant", "eve", "--reason", "helps", "--data", dir}, 0, "is an admin", ""},
		{[]string{"admin", "audit", "--data", dir}, 0, ": ban player #1 (until ", ""},
		{[]string{"admin", "player", "eve", "--data", dir}, 0, "\naccuracy: 75.3, the mean over 1 reviewed of 2 games played by hand\n", ""},
		{[]string{"admin", "bans", "--data", t.TempDir()}, 1, "", "no database in"},
		{[]string{"admin", "bans", "--data"}, 2, "", "--data needs a value"},
		{[]string{"admin"}, 2, "admin ban", ""},
	} {
		var out, errOut bytes.Buffer
		code := run(c.args, &out, &errOut)
		if code != c.code || !strings.Contains(out.String(), c.stdout) || !strings.Contains(errOut.String(), c.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, ~%q, ~%q", c.args, code, out.String(), errOut.String(), c.code, c.stdout, c.stderr)
		}
	}
	var out bytes.Buffer
	run([]string{"admin", "audit", "--data", dir}, &out, &out)
	if !strings.Contains(out.String(), "console:") {
		t.Fatalf("the audit log does not name the console:\n%s", out.String())
	}
}
