package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store/sqlite"
)

// damagedData makes a data directory whose database has a damaged page
// (the last one: a table or index page, not one that opening reads).
func damagedData(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		if _, err := s.UpsertPlayer(context.Background(), "SHA256:key"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26)), "ssh-ed25519", "p"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, sqlite.FileName), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	if _, err := f.WriteAt([]byte{0xff, 0xff, 0xff, 0xff}, fi.Size()-4096); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCheckSubcommand: `ssh2048 check` says ok for a sound database and
// exits 1 with what to do for a damaged one.
func TestCheckSubcommand(t *testing.T) {
	sound := t.TempDir()
	s, err := sqlite.Open(context.Background(), sound)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	var out, errOut bytes.Buffer
	if code := run([]string{"check", "--data", sound}, &out, &errOut); code != 0 || !strings.Contains(out.String(), ": ok") {
		t.Fatalf("sound: exit %d, %q %q", code, out.String(), errOut.String())
	}
	damaged := damagedData(t)
	for _, args := range [][]string{{"check", "--data", damaged}, {"check", "--quick", "--data", damaged}} {
		out.Reset()
		errOut.Reset()
		if code := run(args, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "damaged") || !strings.Contains(errOut.String(), "restore the last backup") {
			t.Fatalf("%v: exit %d, %q %q", args, code, out.String(), errOut.String())
		}
	}
	if code := run([]string{"check", "--data", t.TempDir()}, &out, &errOut); code != 1 {
		t.Fatalf("no database: exit %d", code)
	}
}

// TestServeDamagedDatabase: the server checks its database before it
// listens, and a damaged one stops it at once, with what to do, rather
// than failing players later.
func TestServeDamagedDatabase(t *testing.T) {
	bin := buildBinary(t)
	dir := damagedData(t)
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--data", dir, "--log-format", "json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("serve did not stop on a damaged database:\n%s", stderr.String())
	}
	if cmd.ProcessState.ExitCode() != 1 || strings.Contains(stderr.String(), `"msg":"listening"`) ||
		!strings.Contains(stderr.String(), "database file is damaged") || !strings.Contains(stderr.String(), "restore the last backup") {
		t.Fatalf("exit %d:\n%s", cmd.ProcessState.ExitCode(), stderr.String())
	}
	t.Logf("serve said:\n%s", stderr.String())
}
