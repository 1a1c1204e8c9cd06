package main

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

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

// storedHostile is text a client once typed, as a row may still hold it
// (written by an older version, a merge, a peer, or an operator's SQL):
// escapes that clear the screen, set the title, write the clipboard, a C1
// CSI, a bidi override, a carriage return and a byte of no UTF-8.
const storedHostile = "x\x1b[2J\x1b]0;evil\x07\x1b]52;c;aGk=\x07\u009b31m\u202e\r\xffy"

// terminalHostile reports whether s holds a byte of no UTF-8 or a
// character that could act on a terminal or reorder text: C0 controls but
// a line feed, DEL, C1 controls, bidi controls.
func terminalHostile(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool {
		return r != '\n' && (r < 0x20 || r >= 0x7f && r < 0xa0 || unicode.Is(unicode.Bidi_Control, r))
	})
}

// TestAdminShowsStoredTextCleaned: what the admin commands print of the
// store (names, key types and comments, ban reasons and authors, every
// field of the audit log) reaches the admin's terminal cleaned, whatever
// the row holds.
func TestAdminShowsStoredTextCleaned(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	eve, err := s.UpsertPlayer(ctx, "SHA256:eve-key-fingerprint", "ssh-ed25519", "eve")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite3", filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMicro()
	for _, stmt := range []string{
		`UPDATE players SET name = ?1 WHERE id = ?2`,
		`UPDATE player_names SET name = ?1 WHERE player_id = ?2`,
		`UPDATE player_keys SET key_type = ?1, comment = ?1 WHERE player_id = ?2`,
		`INSERT INTO bans (kind, target, player_id, reason, show_reason, created_by, created_at)
			VALUES ('player', ?2, ?2, ?1, 1, ?1, ?3)`,
		`INSERT INTO bans (kind, target, reason, show_reason, created_by, created_at)
			VALUES ('key', 'SHA256:' || ?1, ?1, 0, ?1, ?3)`,
		`INSERT INTO audit (at, actor, action, target, player_id, reason, detail) VALUES (?3, ?1, ?1, ?1, ?2, ?1, ?1)`,
	} {
		if _, err := db.Exec(stmt, storedHostile, eve.ID, now); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db.Close()
	for _, args := range [][]string{
		{"players"},
		{"players", "--search", "x"},
		{"player", "#1"},
		{"bans"},
		{"audit"},
		{"hide", "#1", "--reason", "r"},
		{"grant", "#1", "--reason", "r"},
		{"unban", "#1", "--reason", "r"},
		{"rename", "#1", "eve2", "--reason", "r"},
	} {
		var out, errOut bytes.Buffer
		code := run(append([]string{"admin", "--data", dir}, args...), &out, &errOut)
		if code != 0 || out.Len() == 0 {
			t.Errorf("admin %q: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
		if terminalHostile(out.String() + errOut.String()) {
			t.Errorf("admin %q: a raw control reaches the terminal: stdout %q, stderr %q", args, out.String(), errOut.String())
		}
	}
}
