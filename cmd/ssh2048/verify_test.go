package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/record"
	"github.com/ssh2048/ssh2048/wire"
)

func TestVerifyFile(t *testing.T) {
	g, err := engine.ChaCha8.NewGame(3, 11)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []engine.Direction
	for i := 0; !g.Over(); i++ {
		if d := engine.Directions()[i%4]; g.Move(d).Moved {
			dirs = append(dirs, d)
		}
	}
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	rec := record.Of(g, dirs, record.Record{GameID: 7, Player: "ann", Key: "SHA256:abcdefgh", Kind: "human", Started: at, Ended: at})
	var b bytes.Buffer
	if err := record.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	// A record is anyone's file: its text fields may hold escapes.
	b.Reset()
	hostile := rec
	hostile.Player, hostile.Key = "ann"+storedHostile, "SHA256:"+storedHostile
	if err := record.Write(&b, hostile); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, text string
		code       int
		want       string
	}{
		{"good", good, wire.ExitOK, "confirmed: game 7 by ann"},
		{"hostile", b.String(), wire.ExitOK, "confirmed: game 7 by ann"},
		{"tampered", strings.Replace(good, "score ", "score 1", 1), wire.ExitRefuted, "refuted: game 7"},
		{"truncated", good[:len(good)/2], wire.ExitUsage, "truncated record"},
		{"malformed", "hello\n", wire.ExitUsage, "not an ssh2048 game record"},
		{"newer", strings.Replace(good, "record v1", "record v9", 1), wire.ExitNewer, "newer ssh2048"},
	} {
		var out, errOut bytes.Buffer
		code := run([]string{"verify", write(tc.name, tc.text)}, &out, &errOut)
		if code != tc.code || !strings.Contains(out.String()+errOut.String(), tc.want) ||
			terminalHostile(out.String()+errOut.String()) {
			t.Errorf("%s: exit %d, out %q, err %q; want %d and %q", tc.name, code, out.String(), errOut.String(), tc.code, tc.want)
		}
	}
	var errOut bytes.Buffer
	if code := run([]string{"verify", filepath.Join(dir, "missing")}, &bytes.Buffer{}, &errOut); code != wire.ExitError {
		t.Errorf("missing file: exit %d %q", code, errOut.String())
	}
	if code := run([]string{"verify"}, &bytes.Buffer{}, &bytes.Buffer{}); code != wire.ExitUsage {
		t.Errorf("no file: exit %d", code)
	}
}

// TestVerifyFileOneMove: a one-move record is confirmed with "1 move",
// not "1 moves".
func TestVerifyFileOneMove(t *testing.T) {
	g, err := engine.ChaCha8.NewGame(4, 5)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []engine.Direction
	for _, d := range engine.Directions() {
		if g.Move(d).Moved {
			dirs = append(dirs, d)
			break
		}
	}
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	rec := record.Of(g, dirs, record.Record{GameID: 8, Player: "bo", Key: "SHA256:abcdefgh", Kind: "human", Started: at, Ended: at})
	var b bytes.Buffer
	if err := record.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "one")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"verify", path}, &out, &errOut); code != wire.ExitOK || !strings.HasSuffix(out.String(), ", 1 move\n") {
		t.Fatalf("exit %d, %q %q; want 0 and \", 1 move\"", code, out.String(), errOut.String())
	}
}
