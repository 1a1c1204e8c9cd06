// Package flagtext writes what a command line is told about its flags, the
// same way for the ssh2048 binary's subcommands and the SSH exec commands:
// each flag as --name (the package flag accepts one dash or two, but its
// help and errors show one, beside usage lines that show two), its default
// once, and text wrapped at spaces to a width, never inside a word.
package flagtext

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// Width is the width text is wrapped to when the terminal's is not known:
// the width of a terminal nobody resized.
const Width = 80

// indent is where a flag's help starts, under its name: column 8, as the
// package flag puts it with a tab.
const indent = "        "

// PrintDefaults writes fs's flags to w, as flag.PrintDefaults does but
// with two dashes, each flag's help wrapped to width, and its default
// value added only where the help does not already say what it is.
func PrintDefaults(w io.Writer, fs *flag.FlagSet, width int) {
	var b strings.Builder
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		b.WriteString("  --" + f.Name)
		if name != "" {
			b.WriteString(" " + name)
		}
		b.WriteByte('\n')
		if def, ok := defaultText(f); ok && !strings.Contains(usage, "(default") {
			usage += " (default " + def + ")"
		}
		b.WriteString(Wrap(usage, width, indent, indent))
		b.WriteByte('\n')
	})
	io.WriteString(w, b.String())
}

// defaultText is f's default as help shows it: quoted for a string flag,
// and nothing (ok false) where the default is the type's zero value.
func defaultText(f *flag.Flag) (text string, ok bool) {
	typ := reflect.TypeOf(f.Value)
	if typ.Kind() != reflect.Pointer {
		return f.DefValue, f.DefValue != ""
	}
	zero, ok := reflect.New(typ.Elem()).Interface().(flag.Value)
	if !ok || zeroString(zero) == f.DefValue {
		return "", false
	}
	if typ.Elem().Kind() == reflect.String {
		return fmt.Sprintf("%q", f.DefValue), true
	}
	return f.DefValue, true
}

// zeroString is v.String() of a zero flag.Value; a Value whose String
// cannot take its zero value (the package flag guards against the same)
// counts as "".
func zeroString(v flag.Value) (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	return v.String()
}

// Error is the message of an error from flag.FlagSet.Parse with the flag
// written as --name, as the usage lines write it. What the client typed
// (an unknown flag, a value) is shown as it is only when it is plain;
// else escaped and cut (shown), since it may hold a terminal's controls,
// a newline, or a whole packet's worth of text.
func Error(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag " + shown("--"+name)
	}
	if arg, ok := strings.CutPrefix(msg, "bad flag syntax: "); ok {
		return "bad flag syntax: " + shown(arg)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "flag needs an argument: --" + name // a defined flag's
	}
	// invalid value "V" for flag -name: ..., invalid boolean value "V"
	// for -name: ...: the value, which may hold anything, is cut.
	for _, head := range []string{"invalid value ", "invalid boolean value "} {
		v, ok := strings.CutPrefix(msg, head)
		if !ok {
			continue
		}
		quoted, err := strconv.QuotedPrefix(v)
		if err != nil {
			break
		}
		value, _ := strconv.Unquote(quoted)
		after := v[len(quoted):]
		for _, old := range []string{" for flag -", " for -"} {
			if rest, ok := strings.CutPrefix(after, old); ok {
				return fmt.Sprintf("%s%.40q for --%s", head, value, graphic(rest))
			}
		}
	}
	return graphic(msg)
}

// shownLen is how much of what a client typed a message shows.
const shownLen = 40

// shown is s, from the command line, as a message shows it: as it is when
// it is a plain word (ASCII letters, digits, - _ . and =) of no more than
// shownLen, else quoted, escaped and cut to shownLen characters, as
// every echo of a client's text is.
func shown(s string) string {
	plain := len(s) <= shownLen
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.=", c) >= 0
	}
	if plain {
		return s
	}
	return fmt.Sprintf("%.*q", shownLen, s)
}

// graphic is s with each character that is not graphic (controls,
// format characters such as bidi overrides) escaped as Go quotes it: the
// rest of a message that may hold a client's text.
func graphic(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsGraphic(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// Wrap wraps each line of s at spaces so that no line is wider than width
// cells: the first line of each starts with first, the lines it wraps
// onto with rest. A word wider than the room on a line of its own is left
// whole; a terminal cuts it where it must, and no other word is cut.
func Wrap(s string, width int, first, rest string) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		wrapLine(&b, line, width, first, rest)
	}
	return b.String()
}

func wrapLine(b *strings.Builder, line string, width int, first, rest string) {
	b.WriteString(first)
	col := ansi.StringWidth(first)
	// Spaces are kept as they are between words that stay on one line
	// (they may align columns), and the line's own leading ones indent it.
	text := strings.TrimLeft(line, " ")
	sep := line[:len(line)-len(text)]
	empty := true // nothing but indentation on this line yet
	for text != "" {
		word, after, found := strings.Cut(text, " ")
		w := ansi.StringWidth(word)
		if !empty && col+len(sep)+w > width {
			b.WriteString("\n" + rest)
			col, sep = ansi.StringWidth(rest), ""
		}
		b.WriteString(sep + word)
		col += len(sep) + w
		empty = false
		text = strings.TrimLeft(after, " ")
		if found {
			sep = " " + after[:len(after)-len(text)]
		}
	}
}
