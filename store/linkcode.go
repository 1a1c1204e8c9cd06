package store

import (
	"crypto/rand"
	"crypto/sha256"
	"strings"
)

// A link code is linkCodeLen characters of Crockford's base 32 (no I, L,
// O or U), crypto/rand's: unguessable within LinkCodeTTL, short enough to
// type from one terminal into another. It is shown in two halves.
const (
	linkAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	linkCodeLen  = 10
)

// NewLinkCode returns a fresh link code, as the player is shown it.
func NewLinkCode() string {
	b := make([]byte, linkCodeLen)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	var s strings.Builder
	for i, c := range b {
		if i == linkCodeLen/2 {
			s.WriteByte('-')
		}
		s.WriteByte(linkAlphabet[c%32]) // 256 is a multiple of 32: no bias
	}
	return s.String()
}

// LinkCodeHash is what a store keeps of a link code: only its hash, so
// that a copy of the database links no one. It reads the code as a person
// may type it (any case, with or without the dash, O for 0, I or L for
// 1); ok is false for what cannot be a code.
func LinkCodeHash(code string) (hash []byte, ok bool) {
	norm := strings.Map(func(r rune) rune {
		switch r {
		case '-', ' ':
			return -1
		case 'o', 'O':
			return '0'
		case 'i', 'I', 'l', 'L':
			return '1'
		}
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, code)
	if len(norm) != linkCodeLen || strings.ContainsFunc(norm, func(r rune) bool { return !strings.ContainsRune(linkAlphabet, r) }) {
		return nil, false
	}
	sum := sha256.Sum256([]byte("ssh2048 link code " + norm))
	return sum[:], true
}
