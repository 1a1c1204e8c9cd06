package screen

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/internal/workers"
)

// Asking the terminal.
//
// An SSH session tells the server the terminal's name (TERM) and nothing
// else that matters here: OpenSSH forwards no COLORTERM unless told to
// (SendEnv/SetEnv), so a true-colour terminal arrives as xterm-256color and
// is drawn in 256 colours. The screen therefore asks the terminal itself,
// with the queries below, and upgrades to true colour when it answers yes.
//
//   - XTGETTCAP "RGB" and "Tc": the terminal's own terminfo capabilities
//     for direct colour (xterm, kitty, foot, WezTerm, iTerm2 answer).
//   - DECRQSS for SGR, after setting an odd true-colour background: a
//     terminal that keeps true colour reports it back unchanged (Windows
//     Terminal, xterm, mintty); one that maps it to its palette reports
//     the palette colour, and stays at 256 colours.
//   - Primary device attributes (DA1) last. Every terminal answers it, and
//     answers in order, so once its answer is in, every query before it
//     has been answered or never will be: the first frame need not wait
//     for the timeout on terminals that answer nothing (tmux 3.3, say).
//
// The first frame waits for the DA1 answer (and so for the background
// colour, asked for with the same round trip) up to Options.AnswerWait;
// then it is drawn with what is known, and an answer that comes later
// still upgrades the screen, with one full redraw.

// probeBackground is an odd true-colour background (1, 2, 3) that DECRQSS
// reports back unchanged only where true colour is kept.
const probeBackground = "\x1b[48;2;1;2;3m"

// trueColourQueries ask for the terminal's direct-colour capabilities.
const trueColourQueries = "\x1bP+q524742;5463\x1b\\" + // XTGETTCAP RGB;Tc (hex)
	probeBackground + "\x1bP$qm\x1b\\" + ansi.ResetStyle // DECRQSS SGR, then the pen back

// answeredMsg is the terminal's answer to the last query (DA1): every
// answer to the queries before it has arrived.
type answeredMsg struct{}

// trueColourMsg is a terminal's answer that it shows true colour.
type trueColourMsg struct{}

// startQueries is what the screen asks the terminal when it starts, for a
// screen drawn with profile p.
func startQueries(p colorprofile.Profile) string {
	q := ansi.RequestBackgroundColor
	if p == colorprofile.ANSI || p == colorprofile.ANSI256 {
		// Not below ANSI: no colour (NO_COLOR, TERM=dumb) is the
		// player's choice, and stays.
		q += trueColourQueries
	}
	return q + ansi.RequestPrimaryDeviceAttributes
}

// termcapSaysTrueColour reports whether an XTGETTCAP answer (decoded:
// "RGB=8;Tc") names a direct-colour capability.
func termcapSaysTrueColour(caps string) bool {
	for _, c := range strings.Split(caps, ";") {
		name, _, _ := strings.Cut(c, "=")
		if name == "RGB" || name == "Tc" {
			return true
		}
	}
	return false
}

// decrqssSaysTrueColour reports whether a DCS string is a valid DECRQSS
// answer for SGR (DCS 1 $ r … m ST) holding the probe's background as it
// was set: 48;2;1;2;3, or in the colon form 48:2::1:2:3 (with or without
// the colour-space field).
func decrqssSaysTrueColour(dcs string) bool {
	body, ok := strings.CutPrefix(dcs, "\x1bP1$r")
	if !ok {
		return false
	}
	body = strings.TrimSuffix(strings.TrimSuffix(body, "\x1b\\"), "\x9c")
	body, ok = strings.CutSuffix(body, "m")
	if !ok {
		return false
	}
	for _, param := range strings.Split(body, ";") {
		if param == "48:2::1:2:3" || param == "48:2:1:2:3" {
			return true
		}
	}
	// The semicolon form: the five parameters in a row.
	return strings.Contains(";"+body+";", ";48;2;1;2;3;")
}

// answered ends the wait for the terminal's answers; s.mu is held.
func (s *Screen) answered() {
	if !s.waiting {
		return
	}
	s.waiting = false
	if s.answerTimer != nil {
		s.answerTimer.Stop()
	}
	s.scheduleFrame(false)
}

// answerTimeout draws the first frame with what is known when the
// terminal has not answered in time.
func (s *Screen) answerTimeout() {
	defer s.contain() // after the unlock below
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answered()
}

// upgradeToTrueColour switches the screen to true colour and tells the
// model; s.mu is held.
func (s *Screen) upgradeToTrueColour() {
	if p := s.r.Profile(); p == colorprofile.TrueColor || p < colorprofile.ANSI {
		return
	}
	s.r.SetProfile(colorprofile.TrueColor)
	s.dispatch(tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
}

// startAnswerWait holds the first frame for the terminal's answers, at
// most d; s.mu is held.
func (s *Screen) startAnswerWait(d time.Duration) {
	if d <= 0 {
		return
	}
	s.waiting = true
	// The first frame is deep work: drawn on a worker, whose stack has
	// grown already, rather than on the timer's new goroutine.
	s.answerTimer = time.AfterFunc(d, func() { workers.Go(s.answerTimeout) })
}
