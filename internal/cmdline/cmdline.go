// Package cmdline splits the command line an SSH client sends with an
// exec request into words, by the quoting rules of a POSIX shell: what a
// player typed after `ssh host` reaches the server as one string, OpenSSH
// having joined its arguments with spaces, and a player quotes a word
// that holds a blank (`name "Ann B"`) as they would for a local command.
//
// Only quoting is a shell's here: words are separated by blanks; single
// quotes keep what they hold as it is; inside double quotes a backslash
// escapes only \ " $ ` and a newline; outside quotes it escapes any
// character. Nothing else is special: no comments (`watch #tag` names a
// tag), no expansions, no operators. An empty quoted word is a word
// (`settings theme ""` clears a setting). A line whose quoting is broken
// is refused whole rather than read up to the break, so that `name "bob`
// renames no one.
//
// A line is read in one pass into one buffer, whatever its length: the
// client chooses the line, up to an SSH packet.
package cmdline

import "errors"

// Errors of a line whose quoting is broken.
var (
	ErrUnclosedQuote     = errors.New("a quote is not closed")
	ErrTrailingBackslash = errors.New("the line ends with a backslash")
)

// Split is line's words; nil, with the error, when its quoting is
// broken, and nil for a line of blanks.
func Split(line string) ([]string, error) {
	// Every word is a piece of text, which is never longer than the line:
	// one buffer holds them all, and each word is a string over its part.
	text := make([]byte, 0, len(line))
	type span struct{ from, to int }
	var spans []span
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch c {
		case ' ', '\t', '\r', '\n':
			if inWord {
				spans[len(spans)-1].to = len(text)
				inWord = false
			}
			continue
		}
		if !inWord {
			spans = append(spans, span{from: len(text)})
			inWord = true
		}
		switch c {
		case '\'':
			end := indexByte(line, i+1, '\'')
			if end < 0 {
				return nil, ErrUnclosedQuote
			}
			text = append(text, line[i+1:end]...)
			i = end
		case '"':
			closed := false
			for i++; i < len(line); i++ {
				c := line[i]
				if c == '"' {
					closed = true
					break
				}
				if c == '\\' && i+1 < len(line) {
					switch next := line[i+1]; next {
					case '\\', '"', '$', '`':
						text = append(text, next)
						i++
						continue
					case '\n':
						i++
						continue
					}
				}
				text = append(text, c)
			}
			if !closed {
				return nil, ErrUnclosedQuote
			}
		case '\\':
			if i+1 == len(line) {
				return nil, ErrTrailingBackslash
			}
			i++
			if line[i] != '\n' {
				text = append(text, line[i])
			}
		default:
			text = append(text, c)
		}
	}
	if inWord {
		spans[len(spans)-1].to = len(text)
	}
	if len(spans) == 0 {
		return nil, nil
	}
	all := string(text)
	words := make([]string, len(spans))
	for i, s := range spans {
		words[i] = all[s.from:s.to]
	}
	return words, nil
}

// indexByte is the index of the first c in s at or after from, or -1.
func indexByte(s string, from int, c byte) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
