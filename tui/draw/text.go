package draw

import "strings"

// Capitalise is s with its first byte upper case: an error's text, say,
// made the start of a sentence.
func Capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
