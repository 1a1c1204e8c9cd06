package term

import (
	"bytes"
	"strings"
	"sync"

	"github.com/charmbracelet/colorprofile"
)

// style is an SGR style as a terminal with a given colour profile shows
// it. Styles are interned: one *style per profile and view style, shared
// by every session, so cells compare by pointer and the conversion and
// parsing happen once. nil is the default style.
type style struct {
	sgr    string // the parameters that set it from the default
	attrs  attrs
	fg, bg string // colour parameters ("38;5;241", "31"), "" for the default
	ul     string // underline colour
	opaque bool   // parameters this package does not take apart; sgr only
	// space is the style a space drawn in this style looks like: only
	// the background shows, unless something is drawn across the cell.
	space *style
}

type attrs uint16

const (
	bold attrs = 1 << iota
	faint
	italic
	underline
	blink
	reverse
	conceal
	strike
	overline
)

// attrCodes are each attribute's on and off parameters, in attrs order.
var attrCodes = [...]struct{ on, off string }{
	{"1", "22"}, {"2", "22"}, {"3", "23"}, {"4", "24"}, {"5", "25"},
	{"7", "27"}, {"8", "28"}, {"9", "29"}, {"53", "55"},
}

// acrossCell are the attributes that draw over a cell's whole width, so
// that a space shows them (and, but for reverse, its foreground colour).
const acrossCell = underline | reverse | strike | overline

// parseSGR reads SGR parameters into a style; opaque if it meets one it
// does not know.
func parseSGR(params string) style {
	var s style
	toks := strings.Split(params, ";")
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		base, sub, hasSub := strings.Cut(t, ":")
		colour := func() string { // 38;5;n, 38;2;r;g;b or 38:…
			switch {
			case hasSub:
				return t
			case i+2 < len(toks) && toks[i+1] == "5":
				c := strings.Join(toks[i:i+3], ";")
				i += 2
				return c
			case i+4 < len(toks) && toks[i+1] == "2":
				c := strings.Join(toks[i:i+5], ";")
				i += 4
				return c
			}
			s.opaque = true
			return ""
		}
		switch base {
		case "", "0":
			s = style{opaque: s.opaque}
		case "38":
			s.fg = colour()
		case "48":
			s.bg = colour()
		case "58":
			s.ul = colour()
		case "39":
			s.fg = ""
		case "49":
			s.bg = ""
		case "59":
			s.ul = ""
		case "22":
			s.attrs &^= bold | faint
		case "4":
			if hasSub && sub != "1" {
				s.opaque = true // curly, dotted…: kept whole
			}
			s.attrs |= underline
		default:
			if len(base) == 2 && (base[0] == '3' || base[0] == '4' || base[0] == '9') && base[1] >= '0' && base[1] <= '7' {
				if base[0] == '4' {
					s.bg = base
				} else {
					s.fg = base
				}
				continue
			}
			if len(base) == 3 && base[:2] == "10" && base[2] >= '0' && base[2] <= '7' {
				s.bg = base
				continue
			}
			known := false
			for a, c := range attrCodes {
				switch base {
				case c.on:
					s.attrs |= 1 << a
					known = true
				case c.off:
					s.attrs &^= 1 << a
					known = true
				}
			}
			s.opaque = s.opaque || !known || hasSub
		}
	}
	return s
}

// spaceStyle is how a space drawn with s looks (nil is the default).
func (s *style) spaceStyle() *style {
	if s == nil {
		return nil
	}
	return s.space
}

// params writes the style's parameters from the default.
func (s *style) params() string {
	var p []string
	for a, c := range attrCodes {
		if s.attrs&(1<<a) != 0 {
			p = append(p, c.on)
		}
	}
	for _, c := range []string{s.fg, s.bg, s.ul} {
		if c != "" {
			p = append(p, c)
		}
	}
	return strings.Join(p, ";")
}

// transition is the SGR sequence from one style to another, the shorter
// of resetting and setting everything, or changing only what differs.
// Like styles, transitions are kept once for all sessions.
func transition(from, to *style) string {
	if from == to {
		return ""
	}
	key := [2]*style{from, to}
	transitions.RLock()
	t, ok := transitions.m[key]
	transitions.RUnlock()
	if ok {
		return t
	}
	t = newTransition(from, to)
	transitions.Lock()
	if len(transitions.m) < maxTransitions {
		transitions.m[key] = t
	}
	transitions.Unlock()
	return t
}

const maxTransitions = 16384

var transitions = struct {
	sync.RWMutex
	m map[[2]*style]string
}{m: make(map[[2]*style]string)}

func newTransition(from, to *style) string {
	switch {
	case from == to:
		return ""
	case to == nil:
		return "\x1b[m"
	case from == nil:
		return "\x1b[" + to.sgr + "m"
	}
	full := "\x1b[0;" + to.sgr + "m"
	if from.opaque || to.opaque {
		return full
	}
	var p []string
	off := from.attrs &^ to.attrs
	on := to.attrs &^ from.attrs
	if off&(bold|faint) != 0 { // one code turns both off
		on |= to.attrs & (bold | faint)
	}
	for a, c := range attrCodes {
		if off&(1<<a) != 0 && (len(p) == 0 || p[len(p)-1] != c.off) {
			p = append(p, c.off)
		}
	}
	for a, c := range attrCodes {
		if on&(1<<a) != 0 {
			p = append(p, c.on)
		}
	}
	for _, c := range [...]struct{ from, to, none string }{{from.fg, to.fg, "39"}, {from.bg, to.bg, "49"}, {from.ul, to.ul, "59"}} {
		switch {
		case c.from == c.to:
		case c.to == "":
			p = append(p, c.none)
		default:
			p = append(p, c.to)
		}
	}
	if diff := "\x1b[" + strings.Join(p, ";") + "m"; len(diff) < len(full) {
		return diff
	}
	return full
}

// styleOf is the interned style for a view's SGR parameters on a
// terminal with profile p: converted with colorprofile, as Bubble Tea
// converts a whole frame. The table has a bound, for views that make up
// colours; past it, styles are made afresh (and compare unequal, which
// costs bytes, not correctness).
func styleOf(p colorprofile.Profile, view string) *style {
	if view == "" {
		return nil
	}
	key := styleKey{p, view}
	styles.RLock()
	s, ok := styles.m[key]
	styles.RUnlock()
	if ok {
		return s
	}
	s = newStyle(p, view)
	styles.Lock()
	if old, ok := styles.m[key]; ok {
		s = old
	} else if len(styles.m) < maxStyles {
		styles.m[key] = s
	}
	styles.Unlock()
	return s
}

func newStyle(p colorprofile.Profile, view string) *style {
	converted := view
	if p != colorprofile.TrueColor {
		var b bytes.Buffer
		w := colorprofile.Writer{Forward: &b, Profile: p}
		_, _ = w.WriteString("\x1b[" + view + "m")
		converted = strings.TrimSuffix(strings.TrimPrefix(b.String(), "\x1b["), "m")
	}
	if p <= colorprofile.NoTTY {
		converted = ""
	}
	s := parseSGR(converted)
	if s.opaque {
		s.sgr = converted
	} else {
		s.sgr = s.params()
	}
	if s.sgr == "" && !s.opaque {
		return nil
	}
	s.space = &s
	if !s.opaque && s.attrs&acrossCell == 0 && (s.attrs != 0 || s.fg != "" || s.ul != "") {
		s.space = nil
		if s.bg != "" {
			s.space = styleOf(p, s.bg)
		}
	}
	return &s
}

type styleKey struct {
	p    colorprofile.Profile
	view string
}

const maxStyles = 4096

var styles = struct {
	sync.RWMutex
	m map[styleKey]*style
}{m: make(map[styleKey]*style)}
