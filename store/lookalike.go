package store

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"

	"go.mau.fi/util/confusable"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Display names are free text, so two players can pick names that look
// the same: "swap1" and "swapl", "paypal" in Cyrillic letters, "Ann" and
// "ann". Names are not unique (a key is the identity), so wherever names
// are shown to others, the ones that look alike get a tag from their
// player's key (ShortID) beside them.

// NameSkeleton is what display names are compared by to tell whether they
// look alike: the name in NFKC, reduced to its skeleton as Unicode TR39
// defines it (each character that can be confused with another mapped to
// one prototype, from Unicode's confusables.txt), then case folded. Two
// names with one skeleton can pass for each other on screen. Folding after
// the skeleton, not before, keeps capital I and small l alike (folding
// first makes the I an i), and still makes "0" (whose prototype is "O") and
// "o" alike. A skeleton is for comparing only, never for showing.
func NameSkeleton(name string) string {
	return cases.Fold().String(confusable.Skeleton(norm.NFKC.String(name)))
}

// LookAlikes reports, for each name, whether another name in the list
// has the same skeleton. Each name is one player's (a leaderboard has one
// row per player).
func LookAlikes(names []string) []bool {
	if len(names) < 2 {
		// Nothing to look like: the header's rank asks with one name at
		// every scoring move, and a skeleton is the costly part.
		return make([]bool, len(names))
	}
	seen := make(map[string]int, len(names))
	skeletons := make([]string, len(names))
	for i, n := range names {
		skeletons[i] = NameSkeleton(n)
		seen[skeletons[i]]++
	}
	out := make([]bool, len(names))
	for i, s := range skeletons {
		out[i] = seen[s] > 1
	}
	return out
}

// shortIDLen is how many characters of the key's fingerprint name a player
// in `scores --json` (72 bits: no two keys share one by chance, and making
// a key to match another's costs far more than a name).
const shortIDLen = 12

// ShortID is a short, stable identifier of the player with this
// fingerprint: the first 12 characters of the SHA256 fingerprint's base64
// (what `ssh-keygen -lf` prints after "SHA256:"); for a player known by
// something else (local play without a key), the same length of the
// base64 of its SHA-256.
func ShortID(fingerprint string) string {
	if id, ok := strings.CutPrefix(fingerprint, "SHA256:"); ok && len(id) >= shortIDLen {
		return id[:shortIDLen]
	}
	sum := sha256.Sum256([]byte(fingerprint))
	return base64.RawStdEncoding.EncodeToString(sum[:])[:shortIDLen]
}

// LookAlikeTag is shown beside a name that looks like another on the same
// board (LookAlikes): "#" and the first 6 characters of the player's
// ShortID, which `scores --json` gives whole.
func LookAlikeTag(shortID string) string { return "#" + shortID[:min(6, len(shortID))] }
