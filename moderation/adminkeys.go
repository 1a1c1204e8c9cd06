package moderation

import (
	"bytes"
	"fmt"
	"os"

	"github.com/ssh2048/ssh2048/store"
	gossh "golang.org/x/crypto/ssh"
)

// ReadAdminKeys reads the admin keys from path, an authorized_keys file.
// Blank lines and comments are skipped; options before a key are allowed
// and ignored; a line that is no key is an error, naming the line.
func ReadAdminKeys(path string) ([]store.AdminKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("admin keys: %w", err)
	}
	where := path
	var keys []store.AdminKey
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		key, comment, _, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, fmt.Errorf("admin keys: %s line %d: not an authorized_keys line: %w", where, n+1, err)
		}
		keys = append(keys, store.AdminKey{Fingerprint: gossh.FingerprintSHA256(key), KeyType: key.Type(), Comment: comment})
	}
	return keys, nil
}
