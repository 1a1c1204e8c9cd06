package server_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// TestKeysListIsATable: docs/accounts.md's example of `keys`:
//
//	SHA256:wlORthAbCdEf…  ssh-ed25519  added 2026-11-20  last used 2026-11-27 21:14 UTC  (this key)
//	SHA256:Q2x7Yt0aB9cd…  ssh-rsa      added 2026-11-27  last used 2026-11-27 21:02 UTC
//
// a table: the key types are padded, so that "added" starts in one
// column. The listing used to pad nothing.
func TestKeysListIsATable(t *testing.T) {
	ts := startServer(t)
	desk := newKey(t)
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	laptop, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, ts.dial(t, "ann", desk), "link", "")
	_, rest, _ := strings.Cut(r.stdout, "Your link code: ")
	code, _, _ := strings.Cut(rest, " ")
	if r := run(t, ts.dial(t, "ann", laptop), "link "+code, ""); r.code != 0 {
		t.Fatalf("link %q: %d %q", code, r.code, r.stderr)
	}
	r = run(t, ts.dial(t, "ann", desk), "keys", "")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 {
		t.Fatalf("keys: %d %q", r.code, r.stdout)
	}
	if a, b := strings.Index(lines[0], " added "), strings.Index(lines[1], " added "); a != b {
		t.Errorf("keys: \"added\" at column %d and %d, not one column as in docs/accounts.md:\n%s", a, b, r.stdout)
	}
}
