package server

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	gossh "golang.org/x/crypto/ssh"
)

// HostKeyFile is the name of the server's host key inside the data directory.
const HostKeyFile = "ssh_host_ed25519_key"

// LoadOrCreateHostKey returns the host key stored at path, creating an
// ed25519 key there (mode 0600, directory 0700) when none exists yet. Reusing
// the key across restarts is what keeps players' known_hosts valid.
func LoadOrCreateHostKey(path string) (gossh.Signer, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = createHostKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("host key %s: %w", path, err)
	}
	return parseHostKey(path, data)
}

// CheckHostKey reports what is wrong with the host key at path, if one is
// there: serve asks before it makes its data directory, so that a file
// that is no key is a mistake told at once, not a database made and then
// refused. None there is no error: LoadOrCreateHostKey makes one.
func CheckHostKey(path string) error {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil // the directory's own trouble, if any, is told where it is made
	case err != nil:
		return fmt.Errorf("host key %s: %w", path, err)
	}
	_, err = parseHostKey(path, data)
	return err
}

func parseHostKey(path string, data []byte) (gossh.Signer, error) {
	signer, err := gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("host key %s: parse: %w", path, err)
	}
	return signer, nil
}

// createHostKey writes a new key to a temporary file and links it into
// place, so two processes starting at once cannot both install one and no
// reader ever sees a half-written key: the loser reads the winner's.
func createHostKey(path string) ([]byte, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "ssh2048 host key")
	if err != nil {
		return nil, fmt.Errorf("marshal: %w", err)
	}
	data := pem.EncodeToMemory(block)
	f, err := os.CreateTemp(dir, ".hostkey-*") // CreateTemp uses mode 0600
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if err := os.Link(f.Name(), path); errors.Is(err, fs.ErrExist) {
		return os.ReadFile(path)
	} else if err != nil {
		return nil, err
	}
	return data, nil
}
