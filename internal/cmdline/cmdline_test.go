package cmdline

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
		err  error
	}{
		{"", nil, nil},
		{"   \t ", nil, nil},
		{"scores", []string{"scores"}, nil},
		{"  bot  --size 5\t--race ", []string{"bot", "--size", "5", "--race"}, nil},
		{"a\nb\r\nc", []string{"a", "b", "c"}, nil},
		// An empty word is a word: `settings theme ""` clears a setting.
		{`settings theme ""`, []string{"settings", "theme", ""}, nil},
		{`name ''`, []string{"name", ""}, nil},
		{`a "" '' b`, []string{"a", "", "", "b"}, nil},
		{`x""`, []string{"x"}, nil},
		// Single quotes keep everything as it is.
		{`'a b' 'c\d' '"'`, []string{"a b", `c\d`, `"`}, nil},
		// Double quotes: a backslash escapes only \ " $ ` and a newline.
		{`"a b" "c\"d" "e\\f" "g\h" "i\$j" "k\` + "`" + `l"`, []string{"a b", `c"d`, `e\f`, `g\h`, "i$j", "k`l"}, nil},
		{"\"a\\\nb\"", []string{"ab"}, nil},
		// Unquoted, a backslash escapes the next character; before a
		// newline it joins the lines.
		{`a\ b c\\d \'e`, []string{"a b", `c\d`, "'e"}, nil},
		{"a\\\nb", []string{"ab"}, nil},
		// Quotes join the pieces of one word.
		{`ab"cd"'ef'gh`, []string{"abcdefgh"}, nil},
		// Nothing else is special: no comments, expansions or operators.
		{"watch #tag", []string{"watch", "#tag"}, nil},
		{"a;b $HOME `x` |&<>*?~", []string{"a;b", "$HOME", "`x`", "|&<>*?~"}, nil},
		{"naïve 名前", []string{"naïve", "名前"}, nil},
		// Broken quoting is an error, not the words before it.
		{`name "bob`, nil, ErrUnclosedQuote},
		{`name 'bob`, nil, ErrUnclosedQuote},
		{`a "b\"`, nil, ErrUnclosedQuote},
		{`name bob\`, nil, ErrTrailingBackslash},
	} {
		got, err := Split(tt.line)
		if !errors.Is(err, tt.err) || !slices.Equal(got, tt.want) || (tt.want == nil) != (got == nil) {
			t.Errorf("Split(%q) = %q, %v; want %q, %v", tt.line, got, err, tt.want, tt.err)
		}
	}
}

// TestSplitIsLinear: what a line costs grows as the line does. A
// splitter that grew each word a character at a time made a long word cost
// the square of its length: one command line of 200,000 bytes took a
// server many seconds of CPU and gigabytes of garbage.
func TestSplitIsLinear(t *testing.T) {
	for _, piece := range []string{"a", `"ab\"c" 'd e' f\ g `} {
		allocated := func(n int) uint64 {
			line := strings.Repeat(piece, n)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := Split(line); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			return after.TotalAlloc - before.TotalAlloc
		}
		small, large := allocated(10_000), allocated(40_000)
		if large > 6*small {
			t.Errorf("Split of %d and of 4 times as many %q: %d and %d bytes allocated, want about 4 times as many", 10_000, piece, small, large)
		}
	}
}

// quote is words written so that a shell (and Split) reads them back.
func quote(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("'" + strings.ReplaceAll(w, "'", `'\''`) + "'")
	}
	return b.String()
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"", "bot --size 5", `a "b c" 'd'`, `x\ y\`, `"\"\\\$`, "a\n\t b", `'unclosed`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := Split(line)
		if err != nil {
			if words != nil {
				t.Fatalf("Split(%q): words %q beside the error %v", line, words, err)
			}
			return
		}
		// What Split read, quoted again, reads back the same.
		again, err := Split(quote(words))
		if err != nil || !slices.Equal(again, words) {
			t.Fatalf("Split(%q) = %q; quoted again and split: %q, %v", line, words, again, err)
		}
		// Without quotes, backslashes or blanks, a line is its one word.
		if line != "" && !strings.ContainsAny(line, "'\"\\ \t\r\n") && (len(words) != 1 || words[0] != line) {
			t.Fatalf("Split(%q) = %q, want the line as one word", line, words)
		}
	})
}
