package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// TestPlayKey: --key takes the file given to ssh -i as well as its .pub:
// a private key (with a passphrase or not) names the player by its public
// half, never with a base64 error.
func TestPlayKey(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	want := gossh.FingerprintSHA256(sshPub)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	locked, err := gossh.MarshalPrivateKeyWithPassphrase(priv, "", []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, path string }{
		{"public key", write("id.pub", gossh.MarshalAuthorizedKey(sshPub))},
		{"private key", write("id_plain", pem.EncodeToMemory(plain))},
		{"private key with a passphrase", write("id_locked", pem.EncodeToMemory(locked))},
	} {
		lp, err := localPlayer(tt.path)
		if err != nil || lp.fingerprint != want || lp.keyType != "ssh-ed25519" {
			t.Errorf("%s: %+v, %v; want the fingerprint %s", tt.name, lp, err, want)
		}
	}
	_, err = localPlayer(write("junk", []byte("not a key\n")))
	if err == nil || strings.Contains(err.Error(), "base64") || !strings.Contains(err.Error(), "neither an SSH public key") {
		t.Errorf("a file that is no key: %v", err)
	}
}

// TestPlayNeedsItsData: play run where there is no data directory says so
// and makes none, rather than start an empty database of its own.
func TestPlayNeedsItsData(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("SSH2048_DATA", "")
	t.Setenv("STATE_DIRECTORY", "")
	var out, errOut bytes.Buffer
	code := run([]string{"play", "--key", writeKey(t)}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "no games here: no ssh2048.db in ./data") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	if _, err := os.Stat("data"); !os.IsNotExist(err) {
		t.Errorf("play made ./data: %v", err)
	}
}

// TestPlayTheme: SSH2048_THEME that names no theme is one line and
// status 2, before anything is opened.
func TestPlayTheme(t *testing.T) {
	t.Setenv("SSH2048_THEME", "purple")
	var out, errOut bytes.Buffer
	code := run([]string{"play", "--key", writeKey(t), "--data", t.TempDir()}, &out, &errOut)
	if code != 2 || strings.TrimSpace(errOut.String()) != `ssh2048 play: SSH2048_THEME: theme is one of default, high-contrast, colour-blind, light, not "purple"` {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

// writeKey writes a fresh public key file and returns its path.
func writeKey(t *testing.T) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "id.pub")
	if err := os.WriteFile(p, gossh.MarshalAuthorizedKey(k), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTmuxPlay: ssh2048 play (a tea.Program in this terminal) gives the
// terminal back as it was, its window title included, with the last line
// wrapped to the window.
func TestTmuxPlay(t *testing.T) {
	bin := buildBinary(t)
	tm := newTmux(t)
	data := t.TempDir()
	if out, err := exec.Command(bin, "play", "--help").CombinedOutput(); err != nil {
		t.Fatalf("play --help: %v\n%s", err, out)
	}
	tm.newSession(`printf '\033]2;my shell\007'; ` + bin + " play --size 3 --key " + writeKey(t) + " --data " + data + "; echo EXIT=$?; sleep 60")
	tm.run("resize-window", "-t", "game", "-x", "40", "-y", "12")
	tm.waitFor("the game screen", func(s string) bool { return movesOn(s) >= 0 })
	if _, _, title := tm.paneState("game"); title == "my shell" {
		t.Fatal("play does not set the window title")
	}
	tm.run("send-keys", "-t", "game", "Left", "q")
	screen := tm.waitFor("the exit", func(s string) bool { return exitRe.MatchString(s) })
	if !strings.Contains(screen, "EXIT=0") || !strings.Contains(screen, "Your game is saved; it will be waiting\nwhen you come back.") {
		t.Errorf("after quitting play:\n%s", screen)
	}
	if alt, cursor, title := tm.paneState("game"); alt || !cursor || title != "my shell" {
		t.Errorf("after play: alternate screen %v, cursor shown %v, title %q; want false, true, %q", alt, cursor, title, "my shell")
	}
}
