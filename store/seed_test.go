package store_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/store"
)

// TestNewSeed: seeds differ from call to call.
func TestNewSeed(t *testing.T) {
	seen := map[uint64]bool{}
	for range 1000 {
		s := store.NewSeed()
		if seen[s] {
			t.Fatalf("seed %d came twice in 1,000", s)
		}
		seen[s] = true
	}
}

// TestSeedsFromCryptoRand: the packages that start games take their seeds
// from NewSeed (crypto/rand), not from math/rand, whose generator is not
// documented to be unpredictable: with ChaCha8 a game's tiles follow from
// its seed alone, so a seed that can be guessed is a game whose tiles can
// be known in advance. They do not import math/rand at all, so that no
// seed can come from it again unnoticed.
func TestSeedsFromCryptoRand(t *testing.T) {
	for _, dir := range []string{".", "sqlite", "postgres", "../game", "../tui"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v (%d files)", dir, err, len(files))
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path == "math/rand" || path == "math/rand/v2" {
					t.Errorf("%s imports %s: take seeds from store.NewSeed, other randomness from crypto/rand", name, path)
				}
			}
		}
	}
}
