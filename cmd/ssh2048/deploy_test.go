package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemdUnit checks deploy/ssh2048.service as CI does: `systemd-analyze
// verify` must print nothing on stderr (its exit status misses unknown
// keys), and the security exposure must stay within 2.0. The unit's
// ExecStart is pointed at a freshly built binary, as verify checks it.
func TestSystemdUnit(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed (apt-get install systemd)")
	}
	unit, err := os.ReadFile(filepath.Join("..", "..", "deploy", "ssh2048.service"))
	if err != nil {
		t.Fatal(err)
	}
	const execPath = "/usr/local/bin/ssh2048"
	if !bytes.Contains(unit, []byte("ExecStart="+execPath+" ")) {
		t.Fatalf("unit's ExecStart is not %s", execPath)
	}
	bin := buildBinary(t)
	path := filepath.Join(t.TempDir(), "ssh2048.service")
	if err := os.WriteFile(path, bytes.ReplaceAll(unit, []byte(execPath), []byte(bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(analyze, "verify", path)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, stderr.String())
	}
	out, err := exec.Command(analyze, "security", "--offline=yes", "--threshold=20", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	for _, want := range []string{"Type=notify", "DynamicUser=yes", "StateDirectory=ssh2048", "ProtectSystem=strict",
		"NoNewPrivileges=yes", "CapabilityBoundingSet=CAP_NET_BIND_SERVICE", "RestrictAddressFamilies=",
		"SystemCallFilter=@system-service", "Restart=on-failure", "MemoryMax=", "TasksMax=", "Environment=SSH2048_HTTP=127.0.0.1:"} {
		if !strings.Contains(string(unit), "\n"+want) {
			t.Errorf("unit lacks %s", want)
		}
	}
}
