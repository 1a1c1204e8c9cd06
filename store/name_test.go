package store

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestSanitizeName(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"plain", "alice", "alice"},
		{"spaces folded and trimmed", "  al \t ice  ", "al ice"},
		{"OSC 52 clipboard write, BEL", "bob\x1b]52;c;ZWNobyBwd25lZA==\x07!", "bob!"},
		{"OSC 52, ST terminated", "bob\x1b]52;c;ZWNobyBwd25lZA==\x1b\\!", "bob!"},
		{"OSC 8 hyperlink", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"CSI colour and clear screen", "\x1b[31mred\x1b[0m\x1b[2J\x1b[H", "red"},
		{"CSI private mode", "a\x1b[?1049hb", "ab"},
		{"C1 CSI", "x\u009b31my", "xy"},
		{"C1 OSC with C1 ST", "x\u009d52;c;AAAA\u009cy", "xy"},
		{"other C1", "a\u0085\u0090junk\u009cb", "a b"},
		{"unterminated OSC swallows the rest", "eve\x1b]0;title", "eve"},
		{"two-char escapes", "a\x1bcb\x1b(Bc\x1b7d", "abcd"},
		{"carriage return and backspace", "admin\rmallory\b\b", "admin mallory"},
		{"bell and NUL", "a\x07b\x00c", "abc"},
		{"bidi overrides and isolates", "abc\u202edcba\u2066x\u2069", "abcdcbax"},
		{"zero width and BOM", "a\u200bb\u200dc\ufeffd\u00ade", "abcde"},
		{"line and paragraph separators", "a\u2028b\u2029c", "a b c"},
		{"invalid UTF-8", "ab\xff\xfe\xc3cd", "abcd"},
		{"private use", "a\ue000b", "ab"},
		{"orphan combining mark", "\u0301abc", "abc"},
		{"combining accent kept", "re\u0301sume\u0301", "re\u0301sume\u0301"},
		{"zalgo dropped", "a" + "e" + strings.Repeat("\u0301", 20) + "b", "ab"},
		{"CJK counted double", "名前名前名前名前名前", "名前名前名前名前"},
		{"CJK cut on a cell boundary", "abc名前名前名前名前", "abc名前名前名前"},
		{"emoji", "👍👍👍👍👍👍👍👍👍", "👍👍👍👍👍👍👍👍"},
		{"long ascii", strings.Repeat("x", 5000), strings.Repeat("x", 16)},
		{"5000 bytes of escapes", strings.Repeat("\x1b[31m", 1000) + "ok", ""},
		{"only hostile", "\x1b[2J\r\n\u202e", ""},
		{"full-width space folded", "a\u3000b", "a b"},
		{"trailing space after cut", "abcdefghijklmno pqr", "abcdefghijklmno"},
		// Issue 12: code points that draw nothing make look-alikes and
		// blank names.
		{"Hangul filler after a name", "swap1\u3164", "swap1"},
		{"only Hangul fillers", "\u3164\u3164\u3164", ""},
		{"choseong and jungseong fillers", "a\u115fb\u1160c\uffa0d", "abcd"},
		{"combining grapheme joiner", "ab\u034fc", "abc"},
		{"variation selectors", "a\ufe0fb\U000e0100c", "abc"},
		{"tags", "flag\U000e0067\U000e0062\U000e007f", "flag"},
		{"Mongolian selectors and separator", "a\u180bb\u180ec", "abc"},
		{"soft hyphen and word joiner", "a\u00adb\u2060c", "abc"},
		{"blank Braille pattern", "\u2800\u2800x\u2800", "x"},
		{"filler inside an escape sequence", "\x1b[3\u31641mred", "red"},
		{"Hangul syllable kept", "\u1100\u1161\u11a8", "\u1100\u1161\u11a8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := SanitizeName(c.in)
			if got != c.want {
				t.Errorf("SanitizeName(%q) = %q, want %q", c.in, got, c.want)
			}
			checkSafeName(t, c.in, got)
		})
	}
}

// checkSafeName asserts the properties every sanitized name has.
func checkSafeName(t *testing.T, in, got string) {
	t.Helper()
	if !utf8.ValidString(got) {
		t.Fatalf("SanitizeName(%q) = %q: invalid UTF-8", in, got)
	}
	if w := ansi.StringWidth(got); w > MaxNameWidth {
		t.Fatalf("SanitizeName(%q) = %q: %d cells wide", in, got, w)
	}
	for _, r := range got {
		if r != ' ' && !unicode.IsGraphic(r) || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Zl, unicode.Zp,
			unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) || r == '\u2800' {
			t.Fatalf("SanitizeName(%q) = %q: contains %U", in, got, r)
		}
	}
	if strings.TrimSpace(got) != got || strings.Contains(got, "  ") {
		t.Fatalf("SanitizeName(%q) = %q: untidy spaces", in, got)
	}
	if again := SanitizeName(got); again != got {
		t.Fatalf("SanitizeName not idempotent: %q → %q → %q", in, got, again)
	}
}

func TestFallbackName(t *testing.T) {
	for _, c := range []struct{ name, fingerprint, want string }{
		{"\x1b[2J", "SHA256:AbCdEfGhIj", "player-AbCdEf"},
		{"\u202ezed", "SHA256:AbCdEfGhIj", "zed"},
		{"", "SHA256:\x1b[31mAb", "player-Ab"},
	} {
		if got := DisplayName(c.name, c.fingerprint); got != c.want {
			t.Errorf("DisplayName(%q, %q) = %q, want %q", c.name, c.fingerprint, got, c.want)
		}
	}
}

func FuzzSanitizeName(f *testing.F) {
	for _, seed := range []string{
		"alice", "\x1b]52;c;AAAA\x07", "\u009b31m", "a\rb\bc", "\u202e\u2066", "\xff\xfe",
		"名前", "e\u0301", "👨\u200d👩\u200d👧", "🇺🇸🇬🇧", "\u1100\u1161\u11a8", strings.Repeat("ab", 100),
		"swap1\u3164", "\u115f\u1160\uffa0", "a\ufe0f\U000e0041\u034f",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkSafeName(t, in, SanitizeName(in))
	})
}

func TestCleanText(t *testing.T) {
	if got := CleanText("spam\x1b[2J\u202e\r\nnow\xff\u009b\u200b."); got != "spam[2Jnow." {
		t.Fatalf("CleanText = %q", got)
	}
}
