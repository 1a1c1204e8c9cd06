package session

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/time/rate"
)

// Logs are read in terminals (journalctl, tail -f), and much of what they
// carry comes from clients: user names, commands, PTY terms, environment
// names, client versions, and errors that quote them. A C1 control, DEL or
// an escape sequence written raw can move the reader's cursor, rewrite
// lines or set the window title; a bidi override can make a line read as
// something else. slog's text handler quotes such strings but its JSON
// handler writes C1, DEL and bidi characters as they are. So every string
// of every record is escaped here, the same way whichever handler writes
// it, and client strings are also cut short (maxLogText), so that a huge
// user name puts at most maxLogText bytes of itself on each line, not the
// whole name.

// maxLogText is the most bytes of one client string that reach a log line;
// a longer one is cut (at a character boundary) and its length logged.
const maxLogText = 128

// ClientAttrs is the log attributes for a client-supplied string: key and
// the string, cut to maxLogText bytes with "…", and then key_bytes with
// the original length.
func ClientAttrs(key, s string) []any {
	if len(s) <= maxLogText {
		return []any{key, s}
	}
	cut := maxLogText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return []any{key, s[:cut] + "…", key + "_bytes", len(s)}
}

// escapeLogText returns s with every character that could act on a
// terminal, hide or reorder text written as an escape: invalid UTF-8 and
// C0 controls (but tab and newline, which both handlers escape
// themselves) and DEL as \xNN; C1 controls, format characters (bidi
// overrides and isolates, zero-width characters), separators other than
// the space, private-use, unassigned and default-ignorable code points as
// \uNNNN or \UNNNNNNNN. A backslash becomes \\, so that an escape in the
// log always means one was made here.
func escapeLogText(s string) string {
	if plainASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x80 || visibleInLog(r):
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	return b.String()
}

// plainASCII reports whether s is printable ASCII without a backslash
// (tab and newline allowed): nothing to escape, the common case.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// visibleInLog reports whether a non-ASCII rune may be written as it is:
// a letter, mark, number, punctuation or symbol that draws something.
func visibleInLog(r rune) bool {
	return unicode.IsPrint(r) && !unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// CleanLogHandler returns a handler that passes every record to h with
// its message, keys and string values escaped (see escapeLogText); errors,
// Stringers and other values of kind Any are written as their escaped
// text. server.New wraps Config.Logger's handler in it; a program can also set
// it as slog's default, which the SSH library logs to.
func CleanLogHandler(h slog.Handler) slog.Handler {
	if c, ok := h.(cleanHandler); ok {
		return c
	}
	return cleanHandler{h}
}

type cleanHandler struct{ h slog.Handler }

func (c cleanHandler) Enabled(ctx context.Context, l slog.Level) bool { return c.h.Enabled(ctx, l) }

func (c cleanHandler) Handle(ctx context.Context, r slog.Record) error {
	clean := slog.NewRecord(r.Time, r.Level, escapeLogText(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		clean.AddAttrs(cleanAttr(a))
		return true
	})
	return c.h.Handle(ctx, clean)
}

func (c cleanHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = cleanAttr(a)
	}
	return cleanHandler{c.h.WithAttrs(clean)}
}

func (c cleanHandler) WithGroup(name string) slog.Handler {
	return cleanHandler{c.h.WithGroup(escapeLogText(name))}
}

func cleanAttr(a slog.Attr) slog.Attr {
	a.Key = escapeLogText(a.Key)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(escapeLogText(v.String()))
	case slog.KindGroup:
		group := v.Group()
		clean := make([]slog.Attr, len(group))
		for i, g := range group {
			clean[i] = cleanAttr(g)
		}
		a.Value = slog.GroupValue(clean...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case nil:
		case error:
			a.Value = slog.StringValue(escapeLogText(x.Error()))
		default:
			a.Value = slog.StringValue(escapeLogText(fmt.Sprint(x)))
		}
	default:
		a.Value = v
	}
	return a
}

// Lines a client can cause at will (a connection that stalls, a request
// refused, a panic it can trigger again and again) are limited per kind:
// a burst of limitedBurst, then limitedRate a second. The lines left out
// are counted: the next line of the kind says how many ("suppressed"),
// and if none comes within a second, a line with just the count does.
// Without it, a thousand stalled connections write a thousand lines, and
// a client looping on a refusal fills the disk the database needs.
const (
	limitedBurst = 10
	limitedRate  = rate.Limit(1)
)

// LineLimiter counts lines per kind (the message).
type LineLimiter struct {
	mu    sync.Mutex
	kinds map[string]*limitedKind
}

type limitedKind struct {
	limit      *rate.Limiter
	suppressed int
	counting   bool // a line with the count is due
}

// Log writes the line unless its kind is over its rate.
func (l *LineLimiter) Log(log *slog.Logger, level slog.Level, msg string, args ...any) {
	if !log.Enabled(context.Background(), level) {
		return
	}
	ok, suppressed := l.allow(msg, time.Now(), func() { l.count(log, level, msg) })
	if !ok {
		return
	}
	if suppressed > 0 {
		args = append(args, "suppressed", suppressed)
	}
	log.Log(context.Background(), level, msg, args...)
}

// allow takes a token for kind; on success it returns how many lines of
// that kind were left out since the last one written. The first line left
// out arranges for count to run a second later.
func (l *LineLimiter) allow(kind string, now time.Time, count func()) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kinds == nil {
		l.kinds = make(map[string]*limitedKind)
	}
	k := l.kinds[kind]
	if k == nil {
		k = &limitedKind{limit: rate.NewLimiter(limitedRate, limitedBurst)}
		l.kinds[kind] = k // kinds are constants in the code: the map stays small
	}
	if !k.limit.AllowN(now, 1) {
		k.suppressed++
		if !k.counting && count != nil {
			k.counting = true
			time.AfterFunc(time.Second, count)
		}
		return false, 0
	}
	n := k.suppressed
	k.suppressed = 0
	return true, n
}

// count writes how many lines of kind were left out, unless a line of the
// kind has said so since.
func (l *LineLimiter) count(log *slog.Logger, level slog.Level, kind string) {
	l.mu.Lock()
	k := l.kinds[kind]
	n := k.suppressed
	k.suppressed, k.counting = 0, false
	l.mu.Unlock()
	if n > 0 {
		log.Log(context.Background(), level, kind, "suppressed", n)
	}
}
