package server_test

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/wire"
)

// storedHostileName is a name as a row may still hold it although the
// name command would refuse it (written by an older version, a merge, a
// peer, or an operator's SQL): escapes that clear the screen, set the
// window title and colour, a C1 CSI, a bidi override.
const storedHostileName = "bob\x1b[2J\x1b]0;evil\x07\u009b31m\u202e"

// storeHostile writes, straight into the server's SQLite file, name as
// the name of key's account (its name key kept: a login takes it as it
// is) and a second key whose type, comment and fingerprint hold it.
func storeHostile(t *testing.T, ts *testServer, key gossh.Signer, name string) {
	t.Helper()
	db, err := sql.Open("sqlite3", ts.store.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{
		`UPDATE players SET name = ?1 WHERE id = (SELECT player_id FROM player_keys WHERE fingerprint = ?2)`,
		`INSERT INTO player_keys (fingerprint, player_id, key_type, comment, added_at, last_used)
			SELECT 'SHA256:' || ?1, player_id, ?1, ?1, 0, 0 FROM player_keys WHERE fingerprint = ?2`,
	} {
		res, err := db.Exec(stmt, name, gossh.FingerprintSHA256(key.PublicKey()))
		if n, _ := res.RowsAffected(); err != nil || n != 1 {
			t.Fatalf("%s: %v, %d rows", stmt, err, n)
		}
	}
}

// TestStoredNameShownCleaned: a stored name or key that holds escapes
// reaches no terminal raw: not its player's own (whoami, name, keys), nor,
// through the session's player, another racer's screen-reader lines.
func TestStoredNameShownCleaned(t *testing.T) {
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 300*time.Millisecond, 3*time.Second))
	bobKey := ts.visited(t, "bob")
	storeHostile(t, ts, bobKey, storedHostileName)
	bob := ts.dial(t, "bob", bobKey)
	for _, cmd := range []string{"whoami", "name", "keys"} {
		r := run(t, bob, cmd, "")
		if r.code != 0 || !strings.Contains(r.stdout, "bob") || strings.ContainsFunc(r.stdout+r.stderr, hostile) {
			t.Errorf("%s: status %d, stdout %q, stderr %q; want bob's name, cleaned", cmd, r.code, r.stdout, r.stderr)
		}
	}
	sess, ann, send := readerSession(t, ts.dial(t, "ann", newKey(t)), "race --room blue-fox")
	waitFor(t, "ann hosting", func() bool { return strings.Contains(ann.String(), "You host this room") })
	openScreen(t, bob, "race --room blue-fox", 80, 24)
	waitFor(t, "bob joining", func() bool { return strings.Contains(ann.String(), " joined the race.\r\n") })
	quitScreen(t, sess, send)
	if text := ann.String(); strings.ContainsFunc(strings.ReplaceAll(text, "\r\n", "\n"), hostile) {
		t.Errorf("a raw control reaches the reader's terminal: %q", text)
	}
}

// TestStoredBanReasonShownCleaned: a ban's reason that the banned are
// shown is stored cleaned, but a row written by hand (or an older version)
// may hold escapes: the banned player's one line has none of them.
func TestStoredBanReasonShownCleaned(t *testing.T) {
	md := startModerated(t)
	eveKey := md.visited(t, "eve")
	md.adminRun(t, `ban eve --show-reason --reason spam`, wire.ExitOK)
	db, err := sql.Open("sqlite3", md.store.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE bans SET reason = ?`, "spam\x1b[2J\x1b]0;evil\x07\u009b31m\u202e\r\n"); err != nil {
		t.Fatal(err)
	}
	// Another write of the bans reads them all again.
	md.adminRun(t, `ban 203.0.113.0/24 --reason other`, wire.ExitOK)
	r := run(t, md.dial(t, "eve", eveKey), "scores", "")
	if r.code != wire.ExitBanned || !strings.Contains(r.stderr, "spam") || strings.Count(r.stderr, "\n") != 1 ||
		strings.ContainsFunc(r.stderr, hostile) {
		t.Fatalf("eve banned: status %d, stderr %q; want %d and one line with the reason, cleaned", r.code, r.stderr, wire.ExitBanned)
	}
}
