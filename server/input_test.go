package server

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// chunks is a reader that returns one chunk per Read, as the SSH channel
// returns one packet.
type chunks [][]byte

func (c *chunks) Read(p []byte) (int, error) {
	if len(*c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, (*c)[0])
	(*c)[0] = (*c)[0][n:]
	if len((*c)[0]) == 0 {
		*c = (*c)[1:]
	}
	return n, nil
}

func limited(t *testing.T, rate float64, in ...string) string {
	t.Helper()
	var c chunks
	for _, s := range in {
		c = append(c, []byte(s))
	}
	k := newKeyLimiter(&c, rate)
	now := time.Unix(1000, 0) // frozen: no tokens come back
	k.now = func() time.Time { return now }
	out, err := io.ReadAll(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestKeyLimiter(t *testing.T) {
	tests := []struct {
		name string
		rate float64
		in   []string
		want string
	}{
		{"under the rate", 10, []string{"abc"}, "abc"},
		{"letters over it", 3, []string{"abcdef"}, "abc"},
		{"arrows whole", 2, []string{"\x1b[A\x1b[B\x1b[C"}, "\x1b[A\x1b[B"},
		{"arrow split across reads", 1, []string{"\x1b[", "A", "\x1b[B"}, "\x1b[A"},
		{"SS3 and Alt", 2, []string{"\x1bOA\x1bx\x1bOB"}, "\x1bOA\x1bx"},
		{"UTF-8 characters whole", 2, []string{"éüß"}, "éü"},
		{"escape twice", 2, []string{"\x1b\x1b[A"}, "\x1b\x1b[A"},
		{"lone escape passed at the end of a read", 1, []string{"\x1b", "q"}, "\x1b"},
		{"OSC string is one key", 2, []string{"\x1b]11;rgb:0000/0000/0000\x07ab"}, "\x1b]11;rgb:0000/0000/0000\x07a"},
		{"paste markers always pass", 1, []string{"\x1b[200~hello\x1b[201~x"}, "\x1b[200~h\x1b[201~"},
		{"endless sequence cut", 1, []string{"\x1b[" + strings.Repeat("1", 1000) + "A"}, "\x1b[" + strings.Repeat("1", maxSeqLen-2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := limited(t, tt.rate, tt.in...); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzKeyLimiter: with tokens enough, the input passes unchanged however it
// is cut into reads; with few, the output is a subsequence of the input
// and never longer than the input.
func FuzzKeyLimiter(f *testing.F) {
	f.Add([]byte("\x1b[A\x1b[200~x\x1b[201~é"), uint8(3))
	f.Add([]byte("\x1b]0;t\x1b\\\x1bOA"), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		split := func() []string {
			var parts []string
			step := int(cut)%7 + 1
			for i := 0; i < len(in); i += step {
				parts = append(parts, string(in[i:min(i+step, len(in))]))
			}
			return parts
		}
		if got := limited(t, float64(len(in)+1), split()...); got != string(in) {
			t.Fatalf("with tokens enough: got %q, want %q", got, in)
		}
		got := limited(t, 2, split()...)
		rest := in
		for _, b := range []byte(got) {
			i := bytes.IndexByte(rest, b)
			if i < 0 {
				t.Fatalf("output %q is not a subsequence of %q", got, in)
			}
			rest = rest[i+1:]
		}
	})
}
