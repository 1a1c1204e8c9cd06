package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

func TestEscapeLogText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ann", "ann"},
		{"two words = fine", "two words = fine"},
		{"Zoë 漢字 🎲", "Zoë 漢字 🎲"},
		{"esc\x1b[31mred", `esc\x1b[31mred`},
		{"bel\x07 cr\r del\x7f", `bel\x07 cr\x0d del\x7f`},
		{"c1 \u009b31m \u0085 \u009d", `c1 \u009b31m \u0085 \u009d`},
		{"bidi \u202eevil\u202c \u2066iso\u2069", `bidi \u202eevil\u202c \u2066iso\u2069`},
		{"zw\u200bsp\u200d \ufeff", `zw\u200bsp\u200d \ufeff`},
		{"filler\u3164 \u115f\u1160\uffa0", `filler\u3164 \u115f\u1160\uffa0`},
		{"vs\ufe0f tag\U000e0041", `vs\ufe0f tag\U000e0041`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"nbsp\u00a0", `nbsp\u00a0`},
		{`back\slash`, `back\\slash`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"stack\n\tframe", "stack\n\tframe"}, // both handlers escape these
	}
	for _, tt := range tests {
		if got := escapeLogText(tt.in); got != tt.want {
			t.Errorf("escapeLogText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzEscapeLogText: whatever goes in, what comes out is valid UTF-8 with
// no control (but tab and newline), format, separator other than space,
// private-use, unassigned or default-ignorable character, and its escapes
// undone give back what went in: a log line says what the client sent.
func FuzzEscapeLogText(f *testing.F) {
	for _, s := range []string{"a", "\x1b]0;x\x07", "\u009b\u202e", "\xff", "\u3164\ufe0f", `\x1b \\ \u202e`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := escapeLogText(s)
		if !utf8.ValidString(out) {
			t.Fatalf("%q: invalid UTF-8 out: %q", s, out)
		}
		for _, r := range out {
			if r == '\n' || r == '\t' {
				continue
			}
			if !unicode.IsPrint(r) || unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) {
				t.Fatalf("%q: %U survived in %q", s, r, out)
			}
		}
		if back := unescapeLogText(t, out); back != s {
			t.Fatalf("%q escaped is %q, which reads back as %q", s, out, back)
		}
	})
}

// unescapeLogText undoes escapeLogText: \\ is a backslash, \xNN a byte,
// \uNNNN and \UNNNNNNNN a character.
func unescapeLogText(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) {
			t.Fatalf("%q ends in a lone backslash", s)
		}
		digits := map[byte]int{'\\': 0, 'x': 2, 'u': 4, 'U': 8}[s[i+1]]
		if s[i+1] == '\\' {
			b.WriteByte('\\')
			i++
			continue
		}
		if digits == 0 || i+2+digits > len(s) {
			t.Fatalf("%q: bad escape at byte %d", s, i)
		}
		v, err := strconv.ParseUint(s[i+2:i+2+digits], 16, 32)
		if err != nil {
			t.Fatalf("%q: bad escape at byte %d: %v", s, i, err)
		}
		if s[i+1] == 'x' {
			b.WriteByte(byte(v))
		} else {
			b.WriteRune(rune(v))
		}
		i += 1 + digits
	}
	return b.String()
}

// TestCleanLogHandler: the text and JSON handlers write the same escaped
// text for a hostile string, in the message, keys, values, groups,
// errors and WithAttrs; neither writes a raw C1, DEL or bidi character.
func TestCleanLogHandler(t *testing.T) {
	const evil = "a\u009b2Jb\u202ec\x7fd\x1b]0;t\x07"
	const want = `a\u009b2Jb\u202ec\x7fd\x1b]0;t\x07`
	var text, js bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&text, nil), slog.NewJSONHandler(&js, nil)} {
		log := slog.New(CleanLogHandler(h)).With("pre", evil)
		log.Info("msg "+evil, "user", evil, "err", errors.New(evil), slog.Group("g", "k"+evil, evil))
	}
	for name, out := range map[string]string{"text": text.String(), "json": js.String()} {
		for _, r := range out {
			if (r >= 0x80 && r <= 0x9f) || r == 0x7f || r == 0x1b || r == 0x07 || unicode.Is(unicode.Bidi_Control, r) {
				t.Errorf("%s: raw %U in %q", name, r, out)
			}
		}
	}
	var rec map[string]any
	if err := json.Unmarshal(js.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pre", "user", "err"} {
		if rec[k] != want {
			t.Errorf("json %s = %q, want %q", k, rec[k], want)
		}
	}
	if rec["msg"] != "msg "+want {
		t.Errorf("json msg = %q", rec["msg"])
	}
	// The text handler leaves a string with backslashes unquoted: the same
	// characters as the JSON value.
	if !strings.Contains(text.String(), "user="+want+" ") {
		t.Errorf("text: %s", text.String())
	}
}

func TestClientAttrs(t *testing.T) {
	if got := ClientAttrs("user", "ann"); len(got) != 2 || got[1] != "ann" {
		t.Errorf("short: %q", got)
	}
	long := strings.Repeat("é", 200) // 400 bytes; a cut at 128 falls inside none
	got := ClientAttrs("user", long)
	if len(got) != 4 || got[2] != "user_bytes" || got[3] != 400 {
		t.Fatalf("long: %q", got)
	}
	s := got[1].(string)
	if !utf8.ValidString(s) || len(s) > maxLogText+len("…") || !strings.HasSuffix(s, "…") {
		t.Errorf("cut %q (%d bytes)", s, len(s))
	}
}

func TestLineLimiter(t *testing.T) {
	var l LineLimiter
	now := time.Unix(1000, 0)
	passed := 0
	for range 100 {
		if ok, _ := l.allow("login grace expired", now, nil); ok {
			passed++
		}
	}
	if passed != limitedBurst {
		t.Fatalf("%d of a burst of 100 lines passed, want %d", passed, limitedBurst)
	}
	if ok, _ := l.allow("idle timeout", now, nil); !ok {
		t.Fatal("another kind was limited")
	}
	ok, suppressed := l.allow("login grace expired", now.Add(time.Second), nil)
	if !ok || suppressed != 100-limitedBurst {
		t.Fatalf("a second later: %v, %d suppressed; want true, %d", ok, suppressed, 100-limitedBurst)
	}
}

// TestLineLimiterCount: when no line of a kind follows the ones left out,
// a line with their count comes a second later, once.
func TestLineLimiterCount(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), nil))
	var l LineLimiter
	for range 50 {
		l.Log(log, slog.LevelInfo, "login grace expired", "remote", "192.0.2.1:1")
	}
	text := func() string {
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(text(), "suppressed=40") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := strings.Count(text(), "login grace expired"); n != limitedBurst+1 || !strings.Contains(text(), "suppressed=40") {
		t.Fatalf("%d lines:\n%s", n, text())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
