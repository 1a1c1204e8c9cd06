package store

import (
	"crypto/rand"
	"encoding/binary"
)

// NewSeed returns the seed of a new game, from crypto/rand. With ChaCha8 a
// game's tiles follow from its seed alone: a seed drawn from a generator
// that is not documented to be unpredictable (math/rand's) could let
// someone who saw other seeds or games know a game's tiles in advance.
// Every game's seed comes from here: players', guests', daily practice
// boards and races.
func NewSeed() uint64 {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return binary.LittleEndian.Uint64(b[:])
}
