package server_test

import (
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/server"
	gossh "golang.org/x/crypto/ssh"
)

// TestNoSHA1: the server offers no key exchange, MAC or host key
// signature built on SHA-1, nor the encrypt-and-MAC MACs: a client that
// offers only those is refused; what OpenSSH 9 negotiates still logs in.
// An RSA host key (an operator's --host-key) signs with SHA-2 only.
func TestNoSHA1(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsaSigner, err := gossh.NewSignerFromKey(rsaKey)
	if err != nil {
		t.Fatal(err)
	}
	ed := startServer(t)
	withRSA := startServer(t, func(c *server.Config) { c.HostKey = rsaSigner })

	tests := []struct {
		name   string
		ts     *testServer
		config gossh.Config
		hosts  []string // host key algorithms; nil: x/crypto's
		ok     bool
	}{
		{name: "defaults", ts: ed, ok: true},
		{name: "mlkem768x25519", ts: ed, config: gossh.Config{KeyExchanges: []string{gossh.KeyExchangeMLKEM768X25519}}, ok: true},
		{name: "curve25519", ts: ed, config: gossh.Config{KeyExchanges: []string{gossh.KeyExchangeCurve25519}}, ok: true},
		{name: "chacha20-poly1305", ts: ed, config: gossh.Config{Ciphers: []string{gossh.CipherChaCha20Poly1305}}, ok: true},
		{name: "aes256-gcm", ts: ed, config: gossh.Config{Ciphers: []string{gossh.CipherAES256GCM}}, ok: true},
		{name: "aes128-ctr, hmac-sha2-256-etm", ts: ed, config: gossh.Config{Ciphers: []string{gossh.CipherAES128CTR}, MACs: []string{gossh.HMACSHA256ETM}}, ok: true},
		{name: "aes256-ctr, hmac-sha2-512-etm", ts: ed, config: gossh.Config{Ciphers: []string{gossh.CipherAES256CTR}, MACs: []string{gossh.HMACSHA512ETM}}, ok: true},
		{name: "rsa-sha2-512", ts: withRSA, hosts: []string{gossh.KeyAlgoRSASHA512}, ok: true},
		{name: "rsa-sha2-256", ts: withRSA, hosts: []string{gossh.KeyAlgoRSASHA256}, ok: true},

		{name: "diffie-hellman-group14-sha1", ts: ed, config: gossh.Config{KeyExchanges: []string{gossh.InsecureKeyExchangeDH14SHA1}}},
		{name: "diffie-hellman-group1-sha1", ts: ed, config: gossh.Config{KeyExchanges: []string{gossh.InsecureKeyExchangeDH1SHA1}}},
		{name: "hmac-sha1", ts: ed, config: gossh.Config{Ciphers: []string{gossh.CipherAES128CTR}, MACs: []string{gossh.HMACSHA1}}},
		{name: "hmac-sha1-96", ts: ed, config: gossh.Config{Ciphers: []string{gossh.CipherAES128CTR}, MACs: []string{gossh.InsecureHMACSHA196}}},
		{name: "hmac-sha2-256 (encrypt-and-MAC)", ts: ed, config: gossh.Config{Ciphers: []string{gossh.CipherAES128CTR}, MACs: []string{gossh.HMACSHA256}}},
		{name: "hmac-sha2-512 (encrypt-and-MAC)", ts: ed, config: gossh.Config{Ciphers: []string{gossh.CipherAES128CTR}, MACs: []string{gossh.HMACSHA512}}},
		{name: "ssh-rsa host key", ts: withRSA, hosts: []string{gossh.KeyAlgoRSA}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &gossh.ClientConfig{
				Config: tt.config, User: "p", Auth: []gossh.AuthMethod{gossh.PublicKeys(newKey(t))},
				HostKeyCallback: gossh.InsecureIgnoreHostKey(), HostKeyAlgorithms: tt.hosts, Timeout: 5 * time.Second,
			}
			c, err := gossh.Dial("tcp", tt.ts.addr, cfg)
			if err == nil {
				c.Close()
			}
			if ok := err == nil; ok != tt.ok {
				t.Fatalf("logged in: %v (%v), want %v", ok, err, tt.ok)
			}
		})
	}
}

// TestCryptoVersion: golang.org/x/crypto is at least v0.45.0, the first
// with the fix for CVE-2025-58181 (unbounded memory from GSSAPI
// authentication requests). go.mod lists every module the build uses, at
// the version it uses.
func TestCryptoVersion(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "golang.org/x/crypto" {
			continue
		}
		parts := strings.SplitN(strings.TrimPrefix(f[1], "v"), ".", 3)
		if len(parts) < 3 {
			t.Fatalf("golang.org/x/crypto version %q", f[1])
		}
		major, err1 := strconv.Atoi(parts[0])
		minor, err2 := strconv.Atoi(parts[1])
		if err := errors.Join(err1, err2); err != nil {
			t.Fatalf("golang.org/x/crypto version %q: %v", f[1], err)
		}
		if major == 0 && minor < 45 {
			t.Fatalf("golang.org/x/crypto %s, want v0.45.0 or later (CVE-2025-58181)", f[1])
		}
		return
	}
	t.Fatal("golang.org/x/crypto not in go.mod")
}
