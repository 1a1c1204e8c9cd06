package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenSSH is the "done when" check: OpenSSH's own client plays `bot`
// and reads `scores` from the real binary, and gets in as a guest without
// a key.
func TestOpenSSH(t *testing.T) {
	sshPath, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("OpenSSH client not installed (apt-get install openssh-client)")
	}
	bin := buildBinary(t)
	p := startProcess(t, bin, filepath.Join(t.TempDir(), "data"))
	_, port, _ := net.SplitHostPort(p.addr)

	keyFile := newKeyFile(t)
	ssh := func(stdin string, args ...string) (string, string, error) {
		t.Helper()
		base := []string{"-p", port, "-F", "/dev/null", "-o", "StrictHostKeyChecking=no",
			"-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "IdentitiesOnly=yes"}
		cmd := exec.Command(sshPath, append(base, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}

	out, errOut, err := ssh("up\nleft\ndown\nright\nnonsense\n", "-i", keyFile, "-o", "PasswordAuthentication=no",
		"-o", "KbdInteractiveAuthentication=no", "ada@127.0.0.1", "bot", "--size", "3")
	if err != nil {
		t.Fatalf("ssh bot: %v; stderr %q", err, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 7 || !strings.Contains(lines[5], `"error"`) {
		t.Fatalf("bot output, want 1 + 4 states + error + state:\n%s", out)
	}
	var last struct{ Moves int }
	if err := json.Unmarshal([]byte(lines[6]), &last); err != nil {
		t.Fatal(err)
	}

	out, errOut, err = ssh("", "-i", keyFile, "-o", "PasswordAuthentication=no", "-o", "KbdInteractiveAuthentication=no",
		"127.0.0.1", "scores", "--bots", "--size", "3", "--json")
	if err != nil {
		t.Fatalf("ssh scores: %v; stderr %q", err, errOut)
	}
	var rows []struct {
		Name  string
		Moves int
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0].Moves != last.Moves {
		t.Fatalf("scores: %v %q, want one row with %d moves", err, out, last.Moves)
	}

	// No key: a guest, through keyboard-interactive with no prompts.
	out, errOut, err = ssh("", "-o", "PubkeyAuthentication=no", "-o", "PasswordAuthentication=no",
		"guest@127.0.0.1", "help")
	if err != nil || !strings.Contains(out, "scores") {
		t.Fatalf("guest help: %v; stdout %q, stderr %q", err, out, errOut)
	}
}
