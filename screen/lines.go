package screen

// Liner is a model that speaks in lines rather than frames: a screen for
// screen readers, which cannot follow a full-screen view repainted in
// place. Its screen changes nothing on the terminal: no alternate screen,
// no hidden or moved cursor, no colour, no window title, no queries; it
// writes, after each message the model handles (and when it quits), what
// AppendLines appends, which is the text said since the last call, each
// line ending in "\r\n". A Liner's View is never drawn.
//
// Everything else is as for any model: keys decoded and rate-limited,
// Update in order, commands, KeyWaiter (a move's sentence waits for its
// commit) and KeyToFrame, timed to the write of the keys' lines.
type Liner interface {
	AppendLines(dst []byte) []byte
}

// liner is the screen's model as a Liner, nil for any other; s.mu is
// held.
func (s *Screen) liner() Liner {
	l, _ := s.model.(Liner)
	return l
}

// restore is what gives the terminal back as it was: nothing for a
// Liner, which changed nothing.
func (s *Screen) restore() string {
	if s.liner() != nil {
		return ""
	}
	return restoreTerminal
}

// drawLines writes what the Liner has said since the last frame; s.mu is
// held. It reports whether anything was written.
func (s *Screen) drawLines(l Liner) bool {
	s.lineBuf = l.AppendLines(s.lineBuf[:0])
	s.write(s.lineBuf)
	return len(s.lineBuf) > 0
}
