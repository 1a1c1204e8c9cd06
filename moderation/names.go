package moderation

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/ssh2048/ssh2048/store"
)

// Blocklist is the words no display name may contain (--blocked-names),
// compared as names are (store.NameSkeleton): case folded and reduced to
// the look-alike skeleton, so that "AdMin", and "аdmin" with a Cyrillic
// "а", hold "admin". The zero Blocklist blocks nothing.
type Blocklist struct {
	skeletons [][2]string // skeletonsOf each word
}

// ReadBlocklist reads a file of words, one a line; blank lines and lines
// starting with # are skipped.
func ReadBlocklist(path string) (Blocklist, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Blocklist{}, fmt.Errorf("blocked names: %w", err)
	}
	var b Blocklist
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		w := strings.TrimSpace(sc.Text())
		if w == "" || w[0] == '#' {
			continue
		}
		b.add(w)
	}
	if err := sc.Err(); err != nil {
		return Blocklist{}, fmt.Errorf("blocked names: %s: %w", path, err)
	}
	return b, nil
}

// NewBlocklist is a Blocklist of words (for tests and callers with a list).
func NewBlocklist(words ...string) Blocklist {
	var b Blocklist
	for _, w := range words {
		b.add(strings.TrimSpace(w))
	}
	return b
}

func (b *Blocklist) add(w string) {
	if s := skeletonsOf(w); s[0] != "" {
		b.skeletons = append(b.skeletons, s)
	}
}

// skeletonsOf is a word or name as the blocklist compares it: the
// skeleton of its sanitized form, spaces left out, so that "b a d" holds
// "bad" too; as it is and in lower case, since a skeleton tells case
// apart where a letter's small form has look-alikes its capital has not
// ("m" looks like "rn", "M" like nothing).
func skeletonsOf(s string) [2]string {
	s = strings.ReplaceAll(store.SanitizeName(s), " ", "")
	return [2]string{store.NameSkeleton(s), store.NameSkeleton(strings.ToLower(s))}
}

// Blocks reports whether name holds a blocked word.
func (b Blocklist) Blocks(name string) bool {
	if len(b.skeletons) == 0 {
		return false
	}
	s := skeletonsOf(name)
	for _, w := range b.skeletons {
		if strings.Contains(s[0], w[0]) || strings.Contains(s[1], w[1]) {
			return true
		}
	}
	return false
}

// Len is how many words the list holds.
func (b Blocklist) Len() int { return len(b.skeletons) }
