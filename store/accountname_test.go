package store

import (
	"errors"
	"strings"
	"testing"
)

// TestNameKey: names one would take for one another have one key; names
// that only share letters do not.
func TestNameKey(t *testing.T) {
	same := [][]string{
		{"ann", "Ann", "ANN", "\u0430nn"},      // Cyrillic а
		{"Zed Lee", "zed lee", "\u0396ed Lee"}, // Greek capital zeta
		{"swap1", "swapl", "SWAPL", "swapI"},   // 1, l and capital I
		{"corn", "com", "CORN"},                // rn and m
		{"Straße", "STRASSE", "strasse"},       // folding
		{"ﬁsh", "fish"},                        // NFKC
	}
	for _, names := range same {
		for _, n := range names[1:] {
			if NameKey(n) != NameKey(names[0]) {
				t.Errorf("NameKey(%q) = %q, NameKey(%q) = %q; want one key", n, NameKey(n), names[0], NameKey(names[0]))
			}
		}
	}
	for _, pair := range [][2]string{{"ann", "anne"}, {"bob", "rob"}, {"zed", "zeb"}} {
		if NameKey(pair[0]) == NameKey(pair[1]) {
			t.Errorf("%q and %q share the key %q", pair[0], pair[1], NameKey(pair[0]))
		}
	}
}

// TestCheckName: what a player may take as a name, and the words for
// what they may not.
func TestCheckName(t *testing.T) {
	tests := []struct {
		raw, want, why string
	}{
		{"ann", "ann", ""},
		{"  Ann   Lee ", "Ann Lee", ""},
		{"日本語", "日本語", ""},
		{"", "", "empty"},
		{"   ", "", "empty"},
		{strings.Repeat("x", MaxNameWidth+1), "", "longer"},
		{strings.Repeat("日", MaxNameWidth/2+1), "", "longer"},
		{"a\x1b[31mb", "", "control"},
		{"a\u200bb", "", "control or invisible"},
		{"a\u202eb", "", "control or invisible"},
		{"ROOT", "", "reserved"},
		{"ubuntu", "", "reserved"},
		{"r\u043eot", "", "reserved"}, // a Cyrillic о
		{"player-7f3a", "", "the server's"},
	}
	for _, tt := range tests {
		got, err := CheckName(tt.raw)
		switch {
		case tt.why == "" && (err != nil || got != tt.want):
			t.Errorf("CheckName(%q) = %q, %v; want %q", tt.raw, got, err, tt.want)
		case tt.why != "" && (!errors.Is(err, ErrNameInvalid) || !strings.Contains(err.Error(), tt.why)):
			t.Errorf("CheckName(%q) = %q, %v; want ErrNameInvalid saying %q", tt.raw, got, err, tt.why)
		}
	}
}

// TestProposeName: a new account is named after its user name unless
// that is a generic login or cannot be a name.
func TestProposeName(t *testing.T) {
	for user, want := range map[string]string{"alice": "alice", "root": "", "ec2-user": "", "\x1b[2J": "", "Pi": ""} {
		if got, ok := ProposeName(user); got != want || ok != (want != "") {
			t.Errorf("ProposeName(%q) = %q, %v; want %q", user, got, ok, want)
		}
	}
	if n := GeneratedName(4); !strings.HasPrefix(n, GeneratedPrefix) || len(n) != len(GeneratedPrefix)+4 {
		t.Errorf("GeneratedName(4) = %q", n)
	}
}

// TestLinkCode: a code reads back however a person types it, and
// nothing else reads as a code.
func TestLinkCode(t *testing.T) {
	code := NewLinkCode()
	want, ok := LinkCodeHash(code)
	if !ok || len(code) != linkCodeLen+1 || code[linkCodeLen/2] != '-' {
		t.Fatalf("NewLinkCode() = %q (reads back: %v)", code, ok)
	}
	for _, typed := range []string{strings.ToLower(code), strings.ReplaceAll(code, "-", ""), " " + code + " "} {
		if got, ok := LinkCodeHash(typed); !ok || string(got) != string(want) {
			t.Errorf("LinkCodeHash(%q) does not read as %q", typed, code)
		}
	}
	if a, _ := LinkCodeHash("0O1IL-AAAAA"); a == nil || string(a) != string(must(LinkCodeHash("00111-AAAAA"))) {
		t.Errorf("O, I and L do not read as 0 and 1")
	}
	for _, bad := range []string{"", "ABCDE", "ABCDE-FGHJKM", "ABCDE-FGHJU", "ABCDE-FGH!K"} {
		if _, ok := LinkCodeHash(bad); ok {
			t.Errorf("LinkCodeHash(%q) reads as a code", bad)
		}
	}
	if NewLinkCode() == code {
		t.Errorf("two codes in a row are %q", code)
	}
}

func must(b []byte, ok bool) []byte {
	if !ok {
		return nil
	}
	return b
}
