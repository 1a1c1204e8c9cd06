package reader

// lines is what a screen of this package has said and not yet written,
// and its last line once the session ends. Every screen here embeds it:
// its AppendLines is theirs (screen.Liner's), and what it holds is
// written, and let go, after each message the screen handles, so it
// never holds more than one message's lines.
type lines struct {
	out   []byte
	final string
}

// AppendLines is screen.Liner's: what was said since the last call.
func (l *lines) AppendLines(dst []byte) []byte {
	dst = append(dst, l.out...)
	l.out = l.out[:0]
	return dst
}

// Final is the session's last line, "" until it ends.
func (l *lines) Final() string { return l.final }

// say adds lines to what the screen writes next.
func (l *lines) say(ss ...string) {
	for _, s := range ss {
		l.out = append(l.out, s...)
		l.out = append(l.out, '\r', '\n')
	}
}

// sayLast says the session's last line; the screen quits after it.
func (l *lines) sayLast(line string) {
	l.final = line
	l.say(line)
}
