package screen

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// limitedInput decodes reads as the screen does and passes each read's
// messages through a limiter of rate keys a second whose clock is
// frozen, so that no token comes back: what passes is the burst.
func limitedInput(t *testing.T, rate float64, reads ...string) []string {
	t.Helper()
	k := newKeyLimiter(rate)
	if k != nil {
		now := time.Unix(1000, 0)
		k.now = func() time.Time { return now }
	}
	l := &inputLog{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		readInput(&chunkReader{chunks: slices.Clone(reads)}, func(msgs []tea.Msg) { l.deliver(k.filter(msgs)) })
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("readInput did not return at the end of its input")
	}
	return l.strings()
}

func TestKeyLimiter(t *testing.T) {
	tests := []struct {
		name  string
		rate  float64
		reads []string
		want  []string
	}{
		{"under the rate", 10, []string{"abc"}, []string{"a", "b", "c"}},
		{"letters over it", 3, []string{"abcdef"}, []string{"a", "b", "c"}},
		{"over it across reads", 3, []string{"ab", "cd", "ef"}, []string{"a", "b", "c"}},
		{"arrows whole", 2, []string{"\x1b[A\x1b[B\x1b[C"}, []string{"up", "down"}},
		{"arrow split across reads", 1, []string{"\x1b[", "A", "\x1b[B"}, []string{"up"}},
		{"SS3 and Alt", 2, []string{"\x1bOA\x1bx\x1bOB"}, []string{"up", "alt+x"}},
		{"UTF-8 characters whole", 2, []string{"éüß"}, []string{"é", "ü"}},
		{"escape and arrow is one key", 1, []string{"\x1b\x1b[Ab"}, []string{"alt+up"}},
		{"answers are not keys", 2, []string{"\x1b]11;rgb:0000/0000/0000\x07ab\x1b]11;rgb:ffff/ffff/ffff\x07c"},
			[]string{"bg #000000", "a", "b", "bg #ffffff"}},
		{"focus reports are not keys", 1, []string{"\x1b[Ia\x1b[Ob"}, []string{"tea.FocusMsg {}", "a", "tea.BlurMsg {}"}},
		{"a paste is one key, its markers always pass", 1, []string{"x\x1b[200~hello\x1b[201~"},
			[]string{"x", "paste start", "paste end"}},
		{"a paste within the rate", 2, []string{"x\x1b[200~hello\x1b[201~y"},
			[]string{"x", "paste start", "paste \"hello\"", "paste end"}},
		{"endless sequence cut", 1, []string{"\x1b[" + strings.Repeat("1", 1000) + "A", "b"}, []string{"1"}},
		{"no limit", 0, []string{strings.Repeat("a", 500)}, slices.Repeat([]string{"a"}, 500)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := limitedInput(t, tt.rate, tt.reads...); !slices.Equal(got, tt.want) {
				t.Fatalf("reads %q at %v keys/s: got %q, want %q", tt.reads, tt.rate, got, tt.want)
			}
		})
	}
}

// TestKeyLimiterRefills: the limit is a rate, not a quota: a second after
// the burst is spent, a second's worth of keys passes again, and no
// more.
func TestKeyLimiterRefills(t *testing.T) {
	k := newKeyLimiter(5)
	now := time.Unix(1000, 0)
	k.now = func() time.Time { return now }
	keys := func(n int) []tea.Msg {
		msgs := make([]tea.Msg, n)
		for i := range msgs {
			msgs[i] = tea.KeyPressMsg{Code: 'a', Text: "a"}
		}
		return msgs
	}
	for _, step := range []struct {
		after time.Duration
		typed int
		want  int
	}{
		{0, 20, 5},
		{100 * time.Millisecond, 20, 0},
		{time.Second, 20, 5},
		{400 * time.Millisecond, 20, 2},
		{10 * time.Second, 3, 3},
		{0, 20, 2},
	} {
		now = now.Add(step.after)
		if got := len(k.filter(keys(step.typed))); got != step.want {
			t.Fatalf("%d keys %v later: %d passed, want %d", step.typed, step.after, got, step.want)
		}
	}
}

// FuzzKeyLimiter: with tokens enough, a limiter changes nothing, however
// the input is cut into reads; with few, what passes is the unlimited
// messages less some keys, in order, with every message that is not a
// key.
func FuzzKeyLimiter(f *testing.F) {
	f.Add([]byte("\x1b[A\x1b[200~x\x1b[201~é"), uint8(3))
	f.Add([]byte("\x1b]0;t\x1b\\\x1bOA\x1b[I"), uint8(1))
	f.Add([]byte("ab\x1b]11;rgb:0000/0000/0000\x07cd"), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		step := int(cut)%7 + 1
		var reads []string
		for i := 0; i < len(in); i += step {
			reads = append(reads, string(in[i:min(i+step, len(in))]))
		}
		all := limitedInput(t, 0, reads...)
		if got := limitedInput(t, float64(len(in)+1), reads...); !slices.Equal(got, all) {
			t.Fatalf("with tokens enough: got %q, want %q", got, all)
		}
		got := limitedInput(t, 2, reads...)
		rest := all
		for _, m := range got {
			i := slices.Index(rest, m)
			if i < 0 {
				t.Fatalf("%q is not %q less some keys", got, all)
			}
			for _, skipped := range rest[:i] {
				if !isKeyString(skipped) {
					t.Fatalf("%q dropped from %q: not a key", skipped, all)
				}
			}
			rest = rest[i+1:]
		}
	})
}

// isKeyString reports whether msgString made s of a key or a paste.
func isKeyString(s string) bool {
	return !strings.HasPrefix(s, "bg ") && !strings.HasPrefix(s, "tea.") && s != "paste start" && s != "paste end"
}
