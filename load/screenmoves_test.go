package load

import "testing"

// headerMoves reads the count where the screen shows it, whatever the
// escape sequences that drew it: cells skipped by cursor moves are
// blanks, and a line drawn over keeps only its last text. The cases share
// one terminal, in order: what a screen leaves (a scroll region) is gone
// for the next.
func TestHeaderMoves(t *testing.T) {
	terms := newTerminals(1)
	t.Cleanup(terms.close)
	for _, tc := range []struct {
		name   string
		redraw string
		want   int
		ok     bool
	}{
		{"plain", "\x1b[H\x1b[2J2048 4×4   Score 12\r\nBest 0   Rank #1   Moves 7", 7, true},
		{"styled, cells skipped", "\x1b[H\x1b[2J\x1b[2;1H\x1b[38;5;8mMoves\x1b[m\x1b[1C\x1b[1m321\x1b[m\x1b[3C2 watching", 321, true},
		{"drawn over", "\x1b[H\x1b[2JMoves 19\x1b[1;7H20", 20, true},
		{"no count", "\x1b[H\x1b[2Jnothing to play here", 0, false},
		{"a word, not the field", "\x1b[H\x1b[2JNoMoves 3", 0, false},
		{"a scroll region set", "\x1b[H\x1b[2J\x1b[1;2rMoves 3", 3, true},
		{"after a scroll region", "\x1b[H\x1b[2JMoves 7\r\nline 2\r\nline 3", 7, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, ok := terms.headerMoves([]byte(tc.redraw), termWidth+1, termHeight)
			if n != tc.want || ok != tc.ok {
				t.Errorf("headerMoves = %d, %v; want %d, %v", n, ok, tc.want, tc.ok)
			}
		})
	}
}
