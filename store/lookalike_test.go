package store

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestNameSkeleton(t *testing.T) {
	alike := [][2]string{
		{"swap1", "swapl"},    // digit one and small L
		{"Ann", "ann"},        // case
		{"paypal", "раураl"},  // Cyrillic р, а, у
		{"admin", "ａｄｍｉｎ"},    // full width (NFKC)
		{"rn", "m"},           // r and n side by side
		{"O0", "OO"},          // zero and capital O
		{"bob", "𝐛𝐨𝐛"},        // mathematical bold (NFKC)
		{"zoë", "zoe\u0308"},  // composed and decomposed
		{"ﬁle", "file"},       // ligature (NFKC)
		{"Straße", "STRASSE"}, // case folding: ß is ss
		{"player-AbCdEf", "player-abcdef"},
		{"Ian", "lan"}, // capital I and small L
	}
	for _, p := range alike {
		if a, b := NameSkeleton(p[0]), NameSkeleton(p[1]); a != b {
			t.Errorf("%q and %q look alike, but their skeletons differ: %q, %q", p[0], p[1], a, b)
		}
	}
	different := [][2]string{{"swap1", "swap2"}, {"ann", "anne"}, {"bob", "bobby"}, {"名前", "名刺"}, {"a b", "ab"}}
	for _, p := range different {
		if NameSkeleton(p[0]) == NameSkeleton(p[1]) {
			t.Errorf("%q and %q have the same skeleton %q", p[0], p[1], NameSkeleton(p[0]))
		}
	}
}

func TestLookAlikes(t *testing.T) {
	got := LookAlikes([]string{"swap1", "carol", "swapl", "dave", "SWAP1", "Carol2"})
	want := []bool{true, false, true, false, true, false}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := LookAlikes(nil); len(got) != 0 {
		t.Fatalf("nil: %v", got)
	}
}

func TestShortID(t *testing.T) {
	fp := "SHA256:IIF1pQrHWc53L8PHzvZhHfD8RHMUb3NMWOY4mjCARLU"
	if got := ShortID(fp); got != "IIF1pQrHWc53" {
		t.Errorf("ShortID(%q) = %q", fp, got)
	}
	local := ShortID("local:ann@host")
	if len(local) != 12 || local != ShortID("local:ann@host") || local == ShortID("local:bob@host") {
		t.Errorf("local ids %q, %q", local, ShortID("local:bob@host"))
	}
	if strings.ContainsFunc(local, func(r rune) bool { return !unicode.IsPrint(r) || r == ' ' }) {
		t.Errorf("local id %q", local)
	}
}

func TestDisplayName(t *testing.T) {
	fp := "SHA256:AbCdEfGhIjKlMn"
	for in, want := range map[string]string{
		"ann":            "ann",
		"swap1\u3164":    "swap1", // stored by an older version
		"\u3164\u3164":   "player-AbCdEf",
		"\x1b[2Jmallory": "mallory",
	} {
		if got := DisplayName(in, fp); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", in, got, want)
		}
	}
}
