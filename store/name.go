package store

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Display-name limits.
const (
	// MaxNameWidth is the widest a display name may be, in terminal cells
	// as the TUI measures them (ansi.StringWidth, which lipgloss uses).
	MaxNameWidth = 16
	// maxNameInput bounds the work done on a hostile name.
	maxNameInput = 4096
	// maxClusterRunes drops "zalgo" graphemes stacked with marks; real
	// letters, conjuncts and emoji with modifiers stay well below it.
	maxClusterRunes = 8
)

// SanitizeName turns an SSH user name into a display name that is safe to
// draw in anyone's terminal: first, code points that draw nothing are
// removed (Unicode's Default_Ignorable_Code_Point, which includes the
// Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, variation selectors,
// tags and the combining grapheme joiner, and the blank Braille pattern
// U+2800), so that "swap1" and "swap1" followed by a filler are one name
// and a name of fillers is no name; then terminal escape sequences (CSI, OSC such as
// OSC 52 clipboard writes, DCS, and their 8-bit C1 forms) are removed
// whole; invalid UTF-8, control, format (bidi overrides, zero-width
// joiners), private-use, unassigned and separator characters are dropped;
// runs of white space become one space; marks with nothing to attach to
// and over-stacked graphemes are dropped; and the result is cut, between
// graphemes, to MaxNameWidth cells. It may return "".
func SanitizeName(raw string) string {
	if len(raw) > maxNameInput {
		raw = raw[:maxNameInput]
	}
	clean := fitWidth(stripUnsafe(stripInvisible(raw)))
	// Dropping characters can join neighbours into new graphemes; repeat
	// until the result is stable so that sanitizing is idempotent.
	for range 3 {
		again := fitWidth(clean)
		if again == clean {
			break
		}
		clean = again
	}
	return clean
}

// stripInvisible removes the code points that draw nothing (see
// SanitizeName). It keeps invalid UTF-8 as it is, for stripUnsafe to drop.
func stripInvisible(s string) string {
	if !strings.ContainsFunc(s, invisible) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, s)
}

// invisible reports whether r draws nothing: a default-ignorable code
// point, or the blank Braille pattern (a symbol, drawn as an empty cell).
func invisible(r rune) bool {
	return r == '\u2800' || defaultIgnorable(r)
}

// defaultIgnorable is Unicode's Default_Ignorable_Code_Point, derived as
// DerivedCoreProperties.txt derives it from the properties Go's unicode
// package has: Other_Default_Ignorable_Code_Point + Cf + Variation_Selector
// - White_Space - FFF9..FFFB - 13430..1343F - Prepended_Concatenation_Mark.
func defaultIgnorable(r rune) bool {
	switch {
	case r < 0xad:
		return false // the common case: no such code point below U+00AD
	case unicode.Is(unicode.White_Space, r), r >= 0xfff9 && r <= 0xfffb, r >= 0x13430 && r <= 0x1343f,
		unicode.Is(unicode.Prepended_Concatenation_Mark, r):
		return false
	}
	return unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector)
}

// stripUnsafe removes escape sequences and unsafe runes and folds spaces.
func stripUnsafe(s string) string {
	var b strings.Builder
	space := false // a space is pending (written before the next rune)
	emit := func(r rune) {
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n <= 1:
			// invalid UTF-8: drop the byte
		case r == 0x1b: // ESC
			i = skipEscape(s, i)
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i)
		case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f: // C1 DCS, SOS, OSC, PM, APC
			i = skipString(s, i)
		case unicode.IsSpace(r):
			space = true
		case unicode.IsGraphic(r): // letters, marks, numbers, punctuation, symbols
			emit(r)
		}
	}
	return b.String()
}

// skipEscape skips what follows an ESC at s[i:] and returns where text
// resumes.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: strings ended by ST or BEL
		return skipString(s, i+1)
	}
	// Two-character (or intermediate + final) escapes such as ESC c, ESC ( B.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips parameters, intermediates and the final byte of a CSI.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString skips a control string up to and including its terminator:
// BEL, ESC \ or C1 ST. An unterminated string swallows the rest.
func skipString(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x07 || r == 0x9c:
			return i + n
		case r == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i // a new sequence starts here: let the caller parse it
		}
		i += n
	}
	return i
}

// fitWidth drops orphan marks and over-stacked graphemes, trims spaces and
// cuts s between graphemes to at most MaxNameWidth cells.
func fitWidth(s string) string {
	var b strings.Builder
	width := 0
	for s != "" {
		cluster, w := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
		if cluster == "" { // cannot happen on valid UTF-8; never loop on it
			_, n := utf8.DecodeRuneInString(s)
			cluster, w = s[:n], 0
		}
		s = s[len(cluster):]
		first, _ := utf8.DecodeRuneInString(cluster)
		if w == 0 || unicode.Is(unicode.M, first) || utf8.RuneCountInString(cluster) > maxClusterRunes {
			continue
		}
		if cluster == " " && b.Len() == 0 {
			continue
		}
		if width+w > MaxNameWidth {
			break
		}
		b.WriteString(cluster)
		width += w
	}
	return strings.TrimRight(strings.Join(strings.Fields(b.String()), " "), " ")
}

// DisplayName is a player's name as it may be shown to anyone: sanitized
// (SanitizeName), or, when nothing is left of it, "player-" and the first
// letters of the key's fingerprint: graphic characters and single spaces
// only. Names stored by an older version, a merge, a peer or by hand are
// shown through it too: SanitizeName is idempotent, so a name stored clean
// stays as it is.
func DisplayName(name, fingerprint string) string {
	if clean := SanitizeName(name); clean != "" {
		return clean
	}
	return fallbackName(fingerprint)
}

// fallbackName names a player whose user name sanitized to nothing.
func fallbackName(fingerprint string) string {
	id := strings.TrimPrefix(fingerprint, "SHA256:")
	id = SanitizeName(id)
	if r := []rune(id); len(r) > 6 {
		id = string(r[:6])
	}
	return "player-" + id
}

// CleanText is free text a client once typed (a reason, a key's type, an
// audit row's fields) made safe to show in any terminal or log: control
// characters (C0, DEL, C1: ESC and CSI begin every escape sequence),
// format characters (bidi overrides, zero-width characters) and invalid
// UTF-8 are dropped; what is left draws as it reads, if not as it was
// meant ("\x1b[2J" is "[2J"). A name is shown through DisplayName
// instead, which removes escape sequences whole and cuts it short.
func CleanText(s string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
}
