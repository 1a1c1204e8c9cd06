package server

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestLoadOrCreateHostKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", HostKeyFile)
	first, err := LoadOrCreateHostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, mode %v", err, info.Mode())
	}
	if dir, _ := os.Stat(filepath.Dir(path)); dir.Mode().Perm() != 0o700 {
		t.Fatalf("key directory mode %v", dir.Mode())
	}
	if first.PublicKey().Type() != "ssh-ed25519" {
		t.Fatalf("key type %s", first.PublicKey().Type())
	}
	again, err := LoadOrCreateHostKey(path)
	if err != nil || !bytes.Equal(again.PublicKey().Marshal(), first.PublicKey().Marshal()) {
		t.Fatalf("second start: %v, key changed", err)
	}

	// Processes starting together agree on one key.
	path = filepath.Join(t.TempDir(), HostKeyFile)
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := LoadOrCreateHostKey(path)
			if err != nil {
				t.Error(err)
				return
			}
			keys[i] = k.PublicKey().Marshal()
		})
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if !bytes.Equal(k, keys[0]) {
			t.Fatal("concurrent starts created different keys")
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("left files behind: %v", entries)
	}

	if err := os.WriteFile(path, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateHostKey(path); err == nil {
		t.Fatal("a corrupt key was accepted")
	}
}
