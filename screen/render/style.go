package render

import (
	"image/color"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// sgrState is a text style: what SGR sequences set, in a form that compares
// with == and hashes fast (it is a key of the tables every cell goes
// through).
type sgrState struct {
	attrs      attrs
	underline  byte // the underline's kind when attrs has underline: '1' straight … '5' dashed
	fg, bg, ul colour
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
var attrCodes = [...]struct{ on, off int }{
	{1, 22}, {2, 22}, {3, 23}, {4, 24}, {5, 25}, {7, 27}, {8, 28}, {9, 29}, {53, 55},
}

// acrossCell are the attributes that draw over a cell's whole width, so
// that a space shows them (and, with reverse, its foreground colour).
const acrossCell = underline | reverse | strike | overline

// isStyleSequence tells whether seq is an SGR sequence: CSI, parameters and
// separators only, m. Other sequences ending in m (with a private prefix
// or an intermediate byte) set terminal modes, not styles.
func isStyleSequence(seq string) bool {
	if len(seq) < 3 || !strings.HasPrefix(seq, "\x1b[") || seq[len(seq)-1] != 'm' {
		return false
	}
	for i := 2; i < len(seq)-1; i++ {
		if c := seq[i]; (c < '0' || c > '9') && c != ';' && c != ':' {
			return false
		}
	}
	return true
}

// apply applies an SGR sequence's parameters, as a terminal does: an
// empty parameter is 0, leading zeros do not count, and parameters it
// does not know, and colours that do not parse, are ignored.
func (p *sgrState) apply(params string) {
	var buf [40]string // parameters are cut without allocating, as a rule
	toks := buf[:0]
	for rest := params; ; {
		tok, after, more := strings.Cut(rest, ";")
		toks = append(toks, tok)
		if !more {
			break
		}
		rest = after
	}
	for i := 0; i < len(toks); i++ {
		base, sub, hasSub := strings.Cut(toks[i], ":")
		n, ok := sgrNumber(base)
		if !ok {
			continue
		}
		switch {
		case n == 38 || n == 48 || n == 58:
			var c colour
			if hasSub {
				c = parseColour(strings.Split(sub, ":"), true)
			} else {
				// 38;5;n or 38;2;r;g;b: the parameters that follow.
				end := i + 1
				if end < len(toks) {
					switch kind, _ := sgrNumber(toks[end]); kind {
					case 5:
						end += 1
					case 2:
						end += 3
					}
				}
				end = min(end, len(toks)-1)
				c = parseColour(toks[i+1:end+1], false)
				i = end
			}
			switch n {
			case 38:
				p.fg = c
			case 48:
				p.bg = c
			default:
				p.ul = c
			}
		case n == 4 && hasSub:
			switch k, _ := sgrNumber(sub); {
			case k == 0:
				p.attrs &^= underline
			case k >= 1 && k <= 5:
				p.attrs |= underline
				p.underline = byte('0' + k)
			}
		case hasSub:
			// No other parameter has sub-parameters.
		case n == 0:
			*p = sgrState{}
		case n == 4:
			p.attrs |= underline
			p.underline = '1'
		case n >= 30 && n <= 37:
			p.fg = basic(n - 30)
		case n >= 90 && n <= 97:
			p.fg = basic(n - 90 + 8)
		case n == 39:
			p.fg = noColour
		case n >= 40 && n <= 47:
			p.bg = basic(n - 40)
		case n >= 100 && n <= 107:
			p.bg = basic(n - 100 + 8)
		case n == 49:
			p.bg = noColour
		case n == 59:
			p.ul = noColour
		default:
			for a, c := range attrCodes {
				switch n {
				case c.on:
					p.attrs |= 1 << a
				case c.off:
					p.attrs &^= 1 << a
				}
			}
		}
	}
}

// applied is st after an SGR sequence's parameters. Views repeat the same
// few sequences, so the results are kept for all sessions (with a bound).
func applied(st sgrState, params string) sgrState {
	if next, ok := steps.get(sgrStep{st, params}); ok {
		return next
	}
	next := st
	next.apply(params)
	// A copy of params: it is part of a frame, which the key would keep.
	return steps.add(sgrStep{st, strings.Clone(params)}, next)
}

type sgrStep struct {
	from   sgrState
	params string
}

var steps = table[sgrStep, sgrState]{max: maxStyles}

// sgrNumber reads a parameter: digits, "" for 0.
func sgrNumber(s string) (int, bool) {
	if s == "" {
		return 0, true
	}
	if len(s) > 9 {
		s = strings.TrimLeft(s, "0")
		if len(s) > 9 {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// parseColour reads a colour's arguments: 5, n or 2, r, g, b (with a
// colour space id first when colonSep, as ITU T.416 has it). Nil if
// they do not make a colour.
func parseColour(args []string, colonSep bool) colour {
	num := func(s string) (uint8, bool) {
		n, ok := sgrNumber(s)
		return uint8(n), ok && n <= 255
	}
	if len(args) == 0 {
		return noColour
	}
	kind, _ := num(args[0])
	switch {
	case len(args) == 2 && kind == 5:
		if n, ok := num(args[1]); ok {
			return indexedColour | colour(n)
		}
	case len(args) >= 4 && kind == 2:
		rgb := args[1:]
		if colonSep && len(rgb) == 4 {
			rgb = rgb[1:] // the colour space id
		}
		if len(rgb) != 3 {
			return noColour
		}
		r, ok1 := num(rgb[0])
		g, ok2 := num(rgb[1])
		b, ok3 := num(rgb[2])
		if ok1 && ok2 && ok3 {
			return rgbColour | colour(r)<<16 | colour(g)<<8 | colour(b)
		}
	}
	return noColour
}

// convert is the pen as a terminal with profile p can show it: colours
// converted with colorprofile (as Bubble Tea converts them), and no
// attributes at all on NoTTY.
func (pn sgrState) convert(p colorprofile.Profile) sgrState {
	if p <= colorprofile.NoTTY {
		return sgrState{}
	}
	conv := func(c colour) colour {
		if c == noColour {
			return noColour
		}
		return colourOf(p.Convert(c.color()))
	}
	pn.fg, pn.bg, pn.ul = conv(pn.fg), conv(pn.bg), conv(pn.ul)
	if pn.attrs&underline == 0 {
		pn.underline = 0
	}
	return pn
}

// params writes the pen's parameters, from the default style.
func (pn sgrState) params() []string {
	var p []string
	for a, c := range attrCodes {
		if pn.attrs&(1<<a) == 0 {
			continue
		}
		if 1<<a == underline && pn.underline > '1' {
			p = append(p, "4:"+string(pn.underline))
			continue
		}
		p = append(p, strconv.Itoa(c.on))
	}
	for i, c := range []colour{pn.fg, pn.bg, pn.ul} {
		if c != noColour {
			p = append(p, colourParams(c, i))
		}
	}
	return p
}

// colourParams writes a colour as the foreground (which 0), background
// (1) or underline colour (2).
func colourParams(c colour, which int) string {
	intro := [...]string{"38", "48", "58"}[which]
	v := int(c & 0xffffff)
	switch c &^ 0xffffff {
	case basicColour:
		base := [...]int{30, 40, 0}[which]
		switch {
		case which == 2:
			return "58;5;" + strconv.Itoa(v)
		case v < 8:
			return strconv.Itoa(base + v)
		default:
			return strconv.Itoa(base + 60 + v - 8)
		}
	case indexedColour:
		return intro + ";5;" + strconv.Itoa(v)
	}
	return intro + ";2;" + strconv.Itoa(v>>16) + ";" + strconv.Itoa(v>>8&0xff) + ";" + strconv.Itoa(v&0xff)
}

// colour is a colour as SGR sets it: its kind in the top byte, then the
// value (a 16-colour number, a 256-colour index or 24-bit RGB).
type colour uint32

const (
	noColour      colour = 0
	basicColour   colour = 1 << 24
	indexedColour colour = 2 << 24
	rgbColour     colour = 3 << 24
)

func basic(n int) colour { return basicColour | colour(n) }

// color is c for colorprofile.
func (c colour) color() color.Color {
	v := uint32(c & 0xffffff)
	switch c &^ 0xffffff {
	case basicColour:
		return ansi.BasicColor(v)
	case indexedColour:
		return ansi.IndexedColor(v)
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
}

// colourOf is a colour from colorprofile.
func colourOf(c color.Color) colour {
	switch c := c.(type) {
	case nil:
		return noColour
	case ansi.BasicColor:
		return basicColour | colour(c)
	case ansi.IndexedColor:
		return indexedColour | colour(c)
	}
	r, g, b, _ := c.RGBA()
	return rgbColour | colour(r>>8)<<16 | colour(g>>8)<<8 | colour(b>>8)
}

// style is a pen as one terminal profile shows it. Styles are interned by
// what they look like, for all sessions: cells compare by pointer, and
// two views' ways of writing one look are one style. nil is the default.
type style struct {
	id   uint32   // for hashing: unique to the style, never 0
	look sgrState // converted
	sgr  string   // its parameters from the default
	// space is how a space drawn in this style looks: only the
	// background, unless something is drawn across the cell.
	space *style
}

// styleIDs numbers styles as they are made.
var styleIDs atomic.Uint32

// idOf is s's id, 0 for the default.
func (s *style) idOf() uint32 {
	if s == nil {
		return 0
	}
	return s.id
}

// spaceStyle is how a space drawn with s looks (nil is the default).
func (s *style) spaceStyle() *style {
	if s == nil {
		return nil
	}
	return s.space
}

// styleOf is the style of a view's pen on a terminal with profile p.
func styleOf(p colorprofile.Profile, view sgrState) *style {
	key := viewKey{p, view}
	if s, ok := byView.get(key); ok {
		return s
	}
	return byView.add(key, intern(view.convert(p)))
}

// intern returns the one style for a converted pen.
func intern(pn sgrState) *style {
	if pn == (sgrState{}) {
		return nil
	}
	if s, ok := byLook.get(pn); ok {
		return s
	}
	s := &style{id: styleIDs.Add(1), look: pn, sgr: strings.Join(pn.params(), ";")}
	s.space = s
	if pn.attrs&acrossCell == 0 && pn != (sgrState{bg: pn.bg}) {
		s.space = intern(sgrState{bg: pn.bg})
	}
	return byLook.add(pn, s)
}

type viewKey struct {
	p    colorprofile.Profile
	view sgrState
}

// maxStyles bounds the tables, for views that make up colours; past it,
// styles are made afresh, which costs bytes (they compare unequal), not
// correctness.
const maxStyles = 4096

var (
	byView = table[viewKey, *style]{max: maxStyles}
	byLook = table[sgrState, *style]{max: maxStyles}
)

// transition is the SGR sequence from one style to another: the shorter
// of resetting and setting everything, or changing only what differs.
// Transitions are kept once for all sessions, like styles.
func transition(from, to *style) string {
	if from == to {
		return ""
	}
	key := [2]*style{from, to}
	if t, ok := transitions.get(key); ok {
		return t
	}
	return transitions.add(key, newTransition(from, to))
}

var transitions = table[[2]*style, string]{max: 4 * maxStyles}

func newTransition(from, to *style) string {
	switch {
	case to == nil:
		return ansi.ResetStyle
	case from == nil:
		return "\x1b[" + to.sgr + "m"
	}
	full := "\x1b[0;" + to.sgr + "m"
	f, t := from.look, to.look
	if f == t {
		return "" // one look made twice, once the tables are full
	}
	var p []string
	off := f.attrs &^ t.attrs
	on := t.attrs &^ f.attrs
	if off&(bold|faint) != 0 { // one code turns both off
		on |= t.attrs & (bold | faint)
	}
	if t.attrs&underline != 0 && f.underline != t.underline {
		on |= underline
	}
	for a, c := range attrCodes {
		if code := strconv.Itoa(c.off); off&(1<<a) != 0 && (len(p) == 0 || p[len(p)-1] != code) {
			p = append(p, code)
		}
	}
	p = append(p, sgrState{attrs: on, underline: t.underline}.params()...)
	for i, c := range [...]struct{ from, to colour }{{f.fg, t.fg}, {f.bg, t.bg}, {f.ul, t.ul}} {
		switch {
		case c.from == c.to:
		case c.to == noColour:
			p = append(p, [...]string{"39", "49", "59"}[i])
		default:
			p = append(p, colourParams(c.to, i))
		}
	}
	if diff := "\x1b[" + strings.Join(p, ";") + "m"; len(diff) < len(full) {
		return diff
	}
	return full
}
