package racing

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/tui/draw"
)

// miniTier draws an opponent's board beside the player's: five cells a
// tile, one line high, a column between tiles and none between rows
// (a 4×4 board is 25×4).
var miniTier = draw.Tier{W: 5, H: 1, GX: 1, GY: 0}

// sideMin is the narrowest the opponents' column is made: a name, a
// score and a tile on one line.
const sideMin = 24

// View draws the screen of the race's phase. Once the session is ending
// it prints only the last line, as the game screen does.
func (m *Model) View() tea.View {
	if m.final != "" {
		return tea.NewView(draw.WrapWords(m.final, max(m.width, 10)) + "\n")
	}
	var body string
	switch {
	case !m.haveView:
		body = "Joining the race…"
	case m.view.Phase == race.Running && m.play != nil:
		s, ok := m.drawn, m.drawn != ""
		if !ok {
			s, ok = m.raceScreen()
		}
		if ok {
			m.drawn = s
			v := tea.NewView(s)
			v.AltScreen, v.WindowTitle = true, "2048 race"
			return v
		}
		body = m.tooSmall()
	case m.view.Phase == race.Finished:
		body = m.resultsScreen()
	default:
		v := tea.NewView(placeCentred(m.lobbyLines(), m.width, m.height))
		v.AltScreen, v.WindowTitle = true, "2048 race"
		return v
	}
	v := tea.NewView(lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, body))
	v.AltScreen, v.WindowTitle = true, "2048 race"
	return v
}

// hints renders bindings as the game screen's help line does, from the
// race's key map.
func (m *Model) hints(bs ...key.Binding) string { return draw.HintsIn(m.styles, bs...) }

func (m *Model) fit(s string) string { return draw.FitWidth(s, m.width) }

// title is "Race · room blue-fox · 4×4 · 3 min"; in a narrow window the
// length, then the size, give way to the room's word.
func (m *Model) title() string {
	k := titleKey{m.styles, m.width, m.view.Room, m.view.Size, m.view.Length, m.view.Bots}
	if m.lobby.title == "" || m.lobby.titleOf != k {
		m.lobby.titleOf, m.lobby.title = k, m.makeTitle()
	}
	return m.lobby.title
}

func (m *Model) makeTitle() string {
	s := m.styles
	where := "public lobby"
	if m.view.Room != "" {
		where = "room " + m.view.Room
	}
	sep := s.Dim.Render(" · ")
	size := sep + s.Label.Render(fmt.Sprintf("%d×%d", m.view.Size, m.view.Size))
	length := sep + s.Label.Render(minutes(m.view.Length))
	bots := ""
	if m.view.Bots {
		bots = s.Dim.Render(" · with bots: unrated")
	}
	t := s.Title.Render("Race") + sep + s.Label.Render(where)
	for _, l := range []string{t + size + length + bots, t + size + length, t + size} {
		if ansi.StringWidth(l) <= m.width {
			return l
		}
	}
	return t
}

func minutes(d time.Duration) string {
	if d < time.Minute {
		return strconv.Itoa(int(d.Seconds())) + " s"
	}
	return strconv.Itoa(int(d.Minutes())) + " min"
}

// ratingText is a racer's rating as the lobby shows it.
func ratingText(r race.Racer) string {
	switch {
	case r.Key == "":
		return "unrated"
	case r.Bot:
		return "bot"
	}
	return strconv.Itoa(int(math.Round(r.Rating)))
}

// left is how long until t, counted in whole seconds up.
func (m *Model) left(t time.Time) time.Duration {
	d := t.Sub(m.now())
	if d <= 0 {
		return 0
	}
	return (d + time.Second - 1).Truncate(time.Second)
}

// lobbyLines lists the racers with their ratings, says what the race
// waits for, and gives the host their controls: the lobby's lines, for
// placeCentred.
func (m *Model) lobbyLines() []string {
	s := m.styles
	v := m.view
	lines := []string{m.title(), "", s.Heading.Render(fmt.Sprintf("Racers %d of %d", len(v.Racers), race.MaxRacers))}
	// The name column gives way in a narrow window before the ratings do.
	nameWidth := min(max(m.width-12, 8), 20)
	for i, r := range v.Racers {
		mark := " "
		if i == m.me {
			mark = "›"
		}
		name := r.Name
		if v.Room != "" && r.Name == v.Host && i == 0 {
			name += " (host)"
		}
		row := fmt.Sprintf("%s %s %8s", mark, draw.PadCells(draw.FitWidth(name, nameWidth), nameWidth), ratingText(r))
		if i == m.me {
			row = s.Me.Render(row)
		}
		lines = append(lines, row)
	}
	lines = append(lines, "")
	host := m.isHost()
	switch {
	case v.Phase == race.Countdown:
		lines = append(lines, s.Title.Render("Starts in "+strconv.Itoa(int(m.left(v.Starts).Seconds()))+" s"))
	case v.Room == "":
		lines = append(lines, draw.WrappedLines("Waiting for a second racer…", m.width, nil)...)
	case host && len(v.Racers) < 2:
		lines = append(lines, draw.WrappedLines("Waiting for a second racer; then enter starts the race.", m.width, nil)...)
	case host:
		lines = append(lines, draw.WrappedLines("Press enter to start the race.", m.width, nil)...)
	default:
		lines = append(lines, draw.WrappedLines("Waiting for "+v.Host+" (the host) to start the race.", m.width, nil)...)
	}
	if v.Room != "" {
		lines = append(lines, m.joinLines()...)
	}
	if m.notice != "" {
		var render func(...string) string
		if m.noticeErr {
			render = s.Error.Render
		}
		lines = append(append(lines, ""), draw.WrappedLines(m.notice, m.width, render)...)
	}
	lines = append(lines, "", m.lobbyKeys(host && v.Phase == race.Waiting))
	lines = keepKeys(lines, m.height)
	for i, l := range lines {
		lines[i] = m.fit(l)
	}
	return lines
}

// lobbyMemo keeps the lobby's lines that change with neither the racers
// nor the clock: every racer's lobby is drawn again at every join and
// every second of the countdown, and each of these lines was a few
// lipgloss renders, and their garbage, each time (the commit that
// brought this in has the figures). Each is kept with what it was made
// from (the styles and the width among it), and made again when that
// changes.
type lobbyMemo struct {
	titleOf titleKey
	title   string

	joinOf joinKey
	join   []string

	keysOf keysKey
	keys   string
}

type titleKey struct {
	styles *draw.Styles
	width  int
	room   string
	size   int
	length time.Duration
	bots   bool
}

type joinKey struct {
	styles *draw.Styles
	width  int
	hint   string
}

type keysKey struct {
	styles *draw.Styles
	width  int
	host   bool // the host of a room still waiting: more keys
}

// joinLines is how others join a private room: "Others join with: race
// --room WORD", or in a narrow window the command on lines of its own,
// broken at spaces only (not at its flags' hyphens), to be copied.
func (m *Model) joinLines() []string {
	hint := m.opts.JoinHint
	if hint == "" {
		hint = "race --room " + m.view.Room
	}
	k := joinKey{m.styles, m.width, hint}
	if m.lobby.join != nil && m.lobby.joinOf == k {
		return m.lobby.join
	}
	s := m.styles
	var lines []string
	if l := s.Dim.Render("Others join with: ") + hint; ansi.StringWidth(l) <= m.width {
		lines = []string{l}
	} else {
		lines = append([]string{s.Dim.Render("Others join with:")}, atSpaces(hint, m.width)...)
	}
	m.lobby.joinOf, m.lobby.join = k, lines
	return lines
}

// lobbyKeys is the lobby's key line: a waiting room's host may also set
// the size and the length, and start (longer, then size, give way to
// start and quit).
func (m *Model) lobbyKeys(host bool) string {
	k := keysKey{m.styles, m.width, host}
	if m.lobby.keys != "" && m.lobby.keysOf == k {
		return m.lobby.keys
	}
	var l string
	if host {
		l = draw.KeysThatFit(m.styles, []key.Binding{m.keys.Size, m.keys.Longer, m.keys.Start, m.keys.Quit}, []int{1, 0}, m.width)
	} else {
		l = m.hints(m.keys.Quit)
	}
	m.lobby.keysOf, m.lobby.keys = k, l
	return l
}

// placeCentred is lipgloss.Place(width, height, Center, Center,
// lipgloss.JoinVertical(Center, lines...)) to the cell, built in one
// allocation and without the padding on the right and below (the
// renderer clears what a frame leaves out). Every racer's lobby is drawn
// again at every join and every second of the countdown, the countdown
// of every race of a load test in the same second as the others; lipgloss
// left much garbage a frame, every racer's in the same second (issue 17;
// the commit that brought this in has the figures).
func placeCentred(lines []string, width, height int) string {
	var widths [64]int
	ws := widths[:0]
	blockW, size := 0, 0
	for _, l := range lines {
		w := ansi.StringWidth(l)
		ws = append(ws, w)
		blockW = max(blockW, w)
		size += len(l) + 1
	}
	// As lipgloss: within the block, a line's gap halved and rounded up
	// goes on its left; in the window, the gaps halved and rounded down
	// go on the left and above.
	left := max(0, (width-blockW)/2)
	top := max(0, (height-len(lines))/2)
	b := make([]byte, 0, size+top+len(lines)*(left+blockW))
	for range top {
		b = append(b, '\n')
	}
	for i, l := range lines {
		b = append(draw.AppendPad(b, left+(blockW-ws[i]+1)/2), l...)
		if i < len(lines)-1 {
			b = append(b, '\n')
		}
	}
	return draw.BytesString(b)
}

// atSpaces breaks text into lines of at most width cells at its spaces.
func atSpaces(text string, width int) []string {
	var lines []string
	for _, w := range strings.Fields(text) {
		if n := len(lines) - 1; n >= 0 && ansi.StringWidth(lines[n])+1+ansi.StringWidth(w) <= width {
			lines[n] += " " + w
			continue
		}
		lines = append(lines, w)
	}
	return lines
}

// keepKeys fits lines, the keys last, into height lines: blank lines go
// first, then the lines just above the keys, so that the keys stay in
// sight in a short window.
func keepKeys(lines []string, height int) []string {
	for i := len(lines) - 2; i > 0 && len(lines) > height; i-- {
		if lines[i] == "" {
			lines = append(lines[:i], lines[i+1:]...)
		}
	}
	if len(lines) > height && height > 0 {
		lines = append(lines[:height-1], lines[len(lines)-1])
	}
	return lines
}

func (m *Model) isHost() bool {
	m.mu.Lock()
	t := m.ticket
	m.mu.Unlock()
	return m.view.Room != "" && t.Host()
}

// standing is the places the racers hold now, appended to order: by
// score, ties to the earlier in the list; a racer who forfeited goes
// last (one who left with their board over keeps their place).
func standing(v race.View, order []int) []int {
	for i := range v.Racers {
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ra, rb := v.Racers[a], v.Racers[b]
		if ra.Forfeit != rb.Forfeit {
			if ra.Forfeit {
				return 1
			}
			return -1
		}
		return rb.Score - ra.Score
	})
	return order
}

// raceScreen is the race: a header with the clock, the player's board
// large and every opponent's beside it (a small board each, or a line
// each when there is no room), the status and key lines.
func (m *Model) raceScreen() (string, bool) {
	f := m.frameNow()
	buf, ok := m.appendRaceScreen(nil, &f, true)
	return draw.BytesString(buf), ok
}

// raceFrame is what a running race's frame is drawn from that changes
// while the race runs. The last frame's is kept, so that the frame can
// be drawn again (AppendLastView): far less to keep for each racer than
// the frame's text. The view's racers are shared with the race and the
// other racers' screens, which is why it is small: the race never
// changes them once shown, it makes new ones.
type raceFrame struct {
	view        race.View
	me          int           // the player's index in view.Racers
	left        time.Duration // on the clock
	board       engine.Board  // the player's
	marks       draw.Marks
	motion      draw.MotionAt // the player's move in motion, if any
	score, gain int
	over        bool
	notice      string
}

// frameNow is what the race's frame shows now; the race is running.
// While a move commits, the player's board is the one before it (see
// Update).
func (m *Model) frameNow() raceFrame {
	f := raceFrame{view: m.view, me: m.me, left: m.left(m.view.Ends), marks: m.marks, gain: m.lastGain, notice: m.notice}
	if p := m.moving; p != nil {
		f.board, f.score, f.over = p.board, p.score, p.over
	} else {
		f.board, f.score, f.over = m.play.Board(), m.play.Score(), m.play.Over()
		f.motion = m.motion.At()
	}
	return f
}

// AppendView is View, with the running race's frame appended to dst
// rather than made a string of its own (screen.ViewAppender): a racer's
// screen is drawn at every racer's move, and a string a frame was most
// of what a race made for the collector. The frame is drawn from the
// tiles each time, and nothing of it is kept: dst is the screen's to
// reuse. Other phases are drawn as View draws them, and copied.
func (m *Model) AppendView(dst []byte) (tea.View, []byte) {
	m.lastDrawn.ok = false
	if m.final == "" && m.haveView && m.view.Phase == race.Running && m.play != nil {
		m.drawn = ""
		m.ownDrawn.lines, m.ownDrawn.cache = nil, nil
		m.lastDrawn.frame = m.frameNow()
		if b, ok := m.appendRaceScreen(dst, &m.lastDrawn.frame, false); ok {
			m.lastDrawn.ok = true
			return raceFrameView(), b
		}
	}
	v := m.View()
	dst = append(dst, v.Content...)
	v.Content = ""
	return v, dst
}

func raceFrameView() tea.View {
	v := tea.NewView("")
	v.AltScreen, v.WindowTitle = true, "2048 race"
	return v
}

// LastRedrawable is screen.ViewRedrawer's: the running race's frames can
// be drawn again, from their raceFrame; the other phases', seldom drawn,
// are kept by the screen.
func (m *Model) LastRedrawable() bool { return m.lastDrawn.ok }

// AppendLastView is screen.ViewRedrawer's: the frame AppendView last
// returned, drawn again.
func (m *Model) AppendLastView(dst []byte) []byte {
	if !m.lastDrawn.ok {
		return dst
	}
	dst, _ = m.appendRaceScreen(dst, &m.lastDrawn.frame, false)
	return dst
}

// appendRaceScreen appends the race screen showing f to dst. With keep,
// dst is nil and the frame is made to be kept as a string (View's): the
// player's board is copied from the last such frame when it has not
// changed, and this frame's rows of it are noted for the next.
func (m *Model) appendRaceScreen(dst []byte, f *raceFrame, keep bool) ([]byte, bool) {
	s := m.styles
	v := &f.view
	n := v.Size
	var orderArr, opponentsArr [race.MaxRacers]int
	opponents := opponentsArr[:0]
	place := 0
	for p, i := range standing(*v, orderArr[:0]) {
		if i == f.me {
			place = p + 1
		} else {
			opponents = append(opponents, i)
		}
	}
	slices.Sort(opponents) // in the order they joined: rows do not jump about
	var headerArr [raceHeaderRoom]byte
	hb, hw := m.appendRaceHeader(headerArr[:0], raceHeader{size: n, left: f.left, score: f.score,
		gain: f.gain, place: place, racers: len(v.Racers)})
	header := draw.Line{S: draw.BytesString(hb), W: hw}
	if hw > m.width { // a narrow window: cut, as a string of its own
		header = draw.Line{S: m.fit(string(hb)), W: min(hw, m.width)}
	}
	status := ""
	switch {
	case f.notice != "":
		status = s.Error.Render(f.notice)
	case f.over:
		status = m.overStatus()
	}
	over := 0
	if f.over {
		over = 1
	}
	if m.raceHelp[over].S == "" {
		quit := draw.Relabel(m.keys.Quit, "leave (forfeit)")
		if f.over {
			quit = draw.Relabel(m.keys.Quit, "leave")
		}
		h := m.fit(m.hints(m.keys.arrows(), quit))
		m.raceHelp[over] = draw.Line{S: h, W: ansi.StringWidth(h)}
	}
	help := m.raceHelp[over]

	const chromeLines = 3 // header, status, keys
	if l, ok := pickWide(n, len(opponents), m.width, m.height, chromeLines); ok {
		if status != "" {
			status = m.fit(status)
		}
		return m.appendWideScreen(dst, f, keep, l, header, draw.Line{S: status, W: ansi.StringWidth(status)}, help, opponents), true
	}
	// The player's board: the largest tile size that leaves room for the
	// opponents' column; without that room, a line of them under the
	// header.
	side := sideMin
	if len(opponents) == 0 {
		side = 0
	}
	t, ok := m.pickTier(n, side, chromeLines)
	summary := false
	if !ok && side > 0 {
		if t, ok = m.pickTier(n, 0, chromeLines+1); ok {
			summary, side = true, 0
		}
	}
	if !ok {
		return dst, false
	}
	if m.own == nil || m.own.Tier != t || m.own.N != n {
		m.own = draw.SharedBoardCache(m.styles, t, n)
	}
	// The player's board is written into the frame from the tiles when
	// it changed, else copied from the last frame (d.lines are pieces of
	// it, which the renderer keeps anyway): no copy of its own to keep
	// per racer, nor to make and drop at each of the racer's moves.
	b := f.board
	d := &m.ownDrawn
	mo := m.motion.Motion(m.own, f.motion, b, &f.marks)
	same := keep && mo == nil && d.cache == m.own && d.board == b && d.marks == f.marks && len(d.lines) > 0
	bw, bh := t.BoardSize(n)

	var sideLines []sideLine
	sideW, sideBytes := 0, 0
	if summary {
		var parts []string
		for _, i := range opponents {
			r := v.Racers[i]
			parts = append(parts, r.Name+" "+s.Value.Render(strconv.Itoa(r.Score)))
		}
		sideLines = []sideLine{{s: strings.Join(parts, s.Dim.Render(" · ")), racer: -1}}
	} else if side > 0 {
		// The column's lines live as long as the frame: an array on the
		// stack unless the opponents' boards are large (a frame a move
		// at every racer, and kept per racer it was memory held).
		var sideArr [16]sideLine
		sideLines, sideW, sideBytes = m.opponentColumn(sideArr[:0], v, opponents, m.width-bw-3, max(bh, m.height-chromeLines))
	}

	var summaryLine draw.Line
	if summary {
		s := m.fit(sideLines[0].s)
		summaryLine = draw.Line{S: s, W: ansi.StringWidth(s)}
		sideLines = nil
	}
	// The board and the column side by side, as one block centred.
	blockW := bw
	if sideW > 0 {
		blockW += 3 + sideW
	}
	left := max(0, (m.width-blockW)/2)
	rows := max(bh, len(sideLines))
	if status != "" {
		status = m.fit(status)
	}
	statusLine := draw.Line{S: status, W: ansi.StringWidth(status)}

	// One buffer, sized at once and to the byte: a race draws every
	// racer's screen at every move, and building its lines apart and
	// joining them left the collector much more to clear (the commit
	// that brought this in has the figures); and the frame is kept
	// until the next (the renderer's last lines, the player's board),
	// with any room the builder had left over.
	count := 3 + rows // header, rows, status, keys
	if summary {
		count++
	}
	top := max(0, (m.height-count)/2)
	size := top + len(header.S) + len(summaryLine.S) + len(status) + len(help.S) + sideBytes
	size += m.centring(header) + m.centring(statusLine) + m.centring(help) + count - 1 // and the line breaks
	if summary {
		size += m.centring(summaryLine)
	}
	size += rows * left
	for r := range rows {
		if r >= bh {
			size += bw
		}
		if r < len(sideLines) {
			size += 3
		}
	}
	if same {
		for _, l := range d.lines {
			size += len(l)
		}
	} else {
		size += m.own.Size(&b, &f.marks) // a frame of motion may take more: append grows it
	}
	var at [64]int // where the board's rows start and end in the frame
	offs := at[:0]
	buf := slices.Grow(dst, size)
	for range top {
		buf = append(buf, '\n')
	}
	buf = m.appendCentred(buf, header)
	if summary {
		buf = append(buf, '\n')
		buf = m.appendCentred(buf, summaryLine)
	}
	for r := range rows {
		buf = append(buf, '\n')
		buf = draw.AppendPad(buf, left)
		if r < bh {
			start := len(buf)
			switch {
			case same:
				buf = append(buf, d.lines[r]...)
			case mo != nil:
				buf = m.own.AppendMotionLine(buf, r, mo)
			default:
				buf = m.own.AppendLine(buf, r, &b, &f.marks)
			}
			offs = append(offs, start, len(buf))
		} else {
			buf = draw.AppendPad(buf, bw)
		}
		if r < len(sideLines) {
			buf = append(buf, "   "...)
			switch l := sideLines[r]; {
			case l.racer < 0:
				buf = append(buf, l.s...)
			case l.k < 0:
				buf = m.appendOpponentFigures(append(buf, l.s...), &v.Racers[l.racer])
			default:
				buf = m.mini.AppendLine(buf, l.k, &v.Racers[l.racer].Board, &noMarks)
			}
		}
	}
	buf = m.appendFoot(buf, statusLine, help)
	if keep {
		m.keepOwn(buf, offs, bh, f)
	}
	return buf, true
}

// appendFoot appends the status and key lines, each centred.
func (m *Model) appendFoot(buf []byte, status, help draw.Line) []byte {
	buf = append(buf, '\n')
	buf = m.appendCentred(buf, status)
	buf = append(buf, '\n')
	return m.appendCentred(buf, help)
}

// keepOwn notes the player's board's bh rows in the frame buf, which
// offs says where they start and end, as drawn from f: the next frame
// copies them if the board has not changed (ownDrawn). A frame of motion
// is not kept: the next shows the board otherwise.
func (m *Model) keepOwn(buf []byte, offs []int, bh int, f *raceFrame) {
	d := &m.ownDrawn
	if f.motion.Frame != 0 {
		d.lines = d.lines[:0]
		return
	}
	frame := draw.BytesString(buf)
	if cap(d.lines) < bh {
		d.lines = make([]string, bh)
	}
	d.lines = d.lines[:bh]
	for r := range bh {
		d.lines[r] = frame[offs[2*r]:offs[2*r+1]]
	}
	d.cache, d.board, d.marks = m.own, f.board, f.marks
}

// raceHeader is what the race screen's header shows.
type raceHeader struct {
	size                       int
	left                       time.Duration
	score, gain, place, racers int
}

// raceHeaderRoom is room for the header's bytes: its inks and text.
const raceHeaderRoom = 320

// appendRaceHeader appends the header line showing h to dst, "Race 4×4
// 2:13 left   Score 1234 +32   Place 2 of 4" in inks, and returns it and
// its width. It is drawn on every racer's screen after every move: into
// an array on the frame's stack, neither kept nor left to the collector.
func (m *Model) appendRaceHeader(dst []byte, h raceHeader) ([]byte, int) {
	k := &m.inks
	var num [40]byte
	var w, hw int
	dst, w = k.title.AppendText(dst, "Race")
	hw += w + 1
	dst = append(dst, ' ')
	n := strconv.AppendInt(num[:0], int64(h.size), 10)
	n = strconv.AppendInt(append(n, "×"...), int64(h.size), 10)
	dst, w = k.label.AppendText(dst, draw.BytesString(n))
	hw += w + 3
	dst = append(dst, "   "...)
	secs := int(h.left / time.Second)
	n = strconv.AppendInt(num[:0], int64(secs/60), 10)
	n = append(n, ':', byte('0'+secs%60/10), byte('0'+secs%10))
	dst, w = k.value.AppendText(dst, draw.BytesString(n))
	hw += w
	dst, w = k.label.AppendText(dst, " left")
	hw += w + 3
	dst = append(dst, "   "...)
	dst, w = k.label.AppendText(dst, "Score ")
	hw += w
	dst, w = k.value.AppendText(dst, draw.BytesString(strconv.AppendInt(num[:0], int64(h.score), 10)))
	hw += w
	if h.gain > 0 {
		dst = append(dst, ' ')
		dst, w = k.gain.AppendText(dst, draw.BytesString(strconv.AppendInt(append(num[:0], '+'), int64(h.gain), 10)))
		hw += 1 + w
	}
	dst = append(dst, "   "...)
	dst, w = k.label.AppendText(dst, "Place ")
	hw += 3 + w
	n = strconv.AppendInt(num[:0], int64(h.place), 10)
	n = strconv.AppendInt(append(n, " of "...), int64(h.racers), 10)
	dst, w = k.value.AppendText(dst, draw.BytesString(n))
	return dst, hw + w
}

// centring is the spaces appendCentred puts before l.
func (m *Model) centring(l draw.Line) int { return max(0, (m.width-l.W)/2) }

// appendCentred appends l, which fits the window, padded to its middle.
func (m *Model) appendCentred(dst []byte, l draw.Line) []byte {
	return append(draw.AppendPad(dst, m.centring(l)), l.S...)
}

// pickTier is the largest tile size whose n×n board fits the window with
// side columns beside it and chrome lines around it.
func (m *Model) pickTier(n, side, chrome int) (draw.Tier, bool) {
	for i := len(draw.Tiers) - 1; i >= 0; i-- {
		w, h := draw.Tiers[i].BoardSize(n)
		if side > 0 {
			w += 3 + side
		}
		if w <= m.width && h+chrome <= m.height {
			return draw.Tiers[i], true
		}
	}
	return draw.Tier{}, false
}

// sideLine is a line of the opponents' column: s; or, for racer (an
// index in the view's racers), their name s with their figures after it
// (k < 0), or line k of their live board. A racer's figures and board
// are written straight into the frame rather than made into lines
// first: a frame is drawn at every racer's move.
type sideLine struct {
	s     string
	racer int // -1: s alone
	k     int
}

// noMarks: an opponent's board is drawn without the marks of its moves.
var noMarks draw.Marks

// opponentColumn is every opponent of v, in the order they joined: a
// line with the name, the score and the largest tile, and under it their
// live board while the column has room for all the boards shown so far.
// It appends the column's lines to out, and returns them, its width and
// the bytes its lines take.
func (m *Model) opponentColumn(out []sideLine, v *race.View, opponents []int, width, height int) (_ []sideLine, w, bytes int) {
	n := v.Size
	mw, mh := miniTier.BoardSize(n)
	if m.mini == nil || m.mini.N != n {
		m.mini = draw.SharedBoardCache(m.styles, miniTier, n)
	}
	boards := 0
	if mw <= width {
		boards = min(len(opponents), max(0, (height-len(opponents))/mh))
	}
	// name, score and tile, and room for " left" or " over" after them.
	const stateW = len(" left")
	nameW := max(4, width-1-6-6-stateW)
	w = nameW + 1 + 6 + 6 + stateW
	if boards > 0 {
		w = max(w, mw)
	}
	out = slices.Grow(out, len(opponents)+boards*mh)
	if len(m.opponents) < len(v.Racers) {
		m.opponents = slices.Grow(m.opponents, len(v.Racers))[:len(v.Racers)]
	}
	for j, i := range opponents {
		r := &v.Racers[i]
		name := m.opponents[i].padded(r.Name, nameW)
		out = append(out, sideLine{s: name, racer: i, k: -1})
		bytes += len(name) + m.opponentFiguresSize(r)
		if j < boards {
			if r.Board.Size() != n {
				continue // no game yet: it could not be opened
			}
			for k := range mh {
				out = append(out, sideLine{racer: i, k: k})
			}
			bytes += m.mini.Size(&r.Board, &noMarks)
		}
	}
	return out, w, bytes
}

// opponentName is an opponent's name as last drawn: padded or cut to a
// width, and a space after it. Kept from frame to frame, as names do not
// change and cutting one to a width takes a string of its own.
type opponentName struct {
	name  string
	width int
	s     string
}

// padded is name nameW columns wide and a space: n's, if it was made
// from the same, else made into n.
func (n *opponentName) padded(name string, nameW int) string {
	if n.s == "" || n.name != name || n.width != nameW {
		*n = opponentName{name: name, width: nameW, s: draw.PadCells(name, nameW) + " "}
	}
	return n.s
}

// overStatus is the status line of a racer whose board is over, in the
// longest of its forms that fits the window. It says the score keeps its
// place, stay or leave: a racer with nothing left to play goes, and must
// not take the key line's forfeit for theirs.
func (m *Model) overStatus() string {
	forms := [...][2]string{
		{"Your board is over:", " your score keeps its place, stay or leave. The race ends when every racer is done or the clock runs out."},
		{"Your board is over:", " your score keeps its place, stay or leave."},
		{"Board over:", " your score keeps its place."},
		{"Board over:", " score kept."},
	}
	f := forms[len(forms)-1]
	for _, form := range forms {
		if len(form[0])+len(form[1]) <= m.width {
			f = form
			break
		}
	}
	return m.styles.Heading.Render(f[0]) + f[1]
}

// opponentState is what an opponent's figures end with: a racer who
// left with their board over is over, their score in its place.
func opponentState(r *race.Racer) string {
	switch {
	case r.Over:
		return " over"
	case r.Left:
		return " left"
	}
	return ""
}

// opponentFiguresSize is the bytes appendOpponentFigures appends for r.
func (m *Model) opponentFiguresSize(r *race.Racer) int {
	var num [20]byte
	score := len(strconv.AppendInt(num[:0], int64(r.Score), 10))
	tile := len(strconv.AppendInt(num[:0], int64(r.MaxTile), 10))
	return m.inks.value.Bytes() + max(6, score) + m.inks.dim.Bytes() + max(6, tile) + len(opponentState(r))
}

// appendOpponentFigures appends r's score and highest tile, and whether
// they left or their board is over, each figure six columns wide.
func (m *Model) appendOpponentFigures(dst []byte, r *race.Racer) []byte {
	var num [20]byte
	score := strconv.AppendInt(num[:0], int64(r.Score), 10)
	dst = append(append(dst, m.inks.value.Pre...), draw.Spaces[:max(0, 6-len(score))]...)
	dst = append(append(dst, score...), m.inks.value.Post...)
	tile := strconv.AppendInt(num[:0], int64(r.MaxTile), 10)
	dst = append(append(dst, m.inks.dim.Pre...), draw.Spaces[:max(0, 6-len(tile))]...)
	dst = append(append(dst, tile...), opponentState(r)...)
	return append(dst, m.inks.dim.Post...)
}

// tooSmall says what the smallest race screen needs: raceScreen's header,
// status and key lines around the smallest board, and the opponents'
// line under the header when there are opponents.
func (m *Model) tooSmall() string {
	w, h := draw.Tiers[0].BoardSize(m.view.Size)
	h += 3
	if len(m.view.Racers) > 1 {
		h++
	}
	return fmt.Sprintf("Window too small for the race\nneed %d×%d, is %d×%d\nq leave", w, h, m.width, m.height)
}

// resultsScreen is the places, scores and rating changes.
func (m *Model) resultsScreen() string {
	s := m.styles
	v := m.view
	order := make([]int, len(v.Racers))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return v.Racers[a].Place - v.Racers[b].Place })
	lines := []string{s.Title.Render("Results") + s.Dim.Render(" · ") + m.title(), ""}
	lines = append(lines, s.Dim.Render(fmt.Sprintf("  %2s  %-18s %7s %6s  %s", "#", "Player", "Score", "Tile", "Rating")))
	for _, i := range order {
		r := v.Racers[i]
		mark := " "
		if i == m.me {
			mark = "›"
		}
		change := "unrated"
		switch {
		case r.Forfeit:
			change = "left: forfeit"
			if r.After != 0 {
				change += fmt.Sprintf(", %d → %d", int(math.Round(r.Rating)), int(math.Round(r.After)))
			}
		case r.After != 0:
			d := int(math.Round(r.After)) - int(math.Round(r.Rating))
			sign := "+"
			if d < 0 {
				sign = "−"
				d = -d
			}
			change = fmt.Sprintf("%d → %d (%s%d)", int(math.Round(r.Rating)), int(math.Round(r.After)), sign, d)
		case r.Bot:
			change = "bot"
		}
		row := fmt.Sprintf("%s %2d  %s %7d %6d  %s", mark, r.Place, draw.PadCells(r.Name, 18), r.Score, r.MaxTile, change)
		if i == m.me {
			row = s.Me.Render(row)
		}
		lines = append(lines, row)
	}
	if v.Bots {
		lines = append(lines, "", s.Dim.Render("A bot raced: this race rates no one and ranks with the bots' races."))
	}
	if v.Lost {
		lines = append(lines, "", s.Error.Render("This race's server went away: no places, no ratings. Your game is kept."))
	}
	if m.notice != "" {
		lines = append(lines, "", s.Error.Render(m.notice))
	}
	lines = append(lines, "")
	if m.opts.Join != nil {
		lines = append(lines, m.hints(m.keys.Again, m.keys.Quit))
	} else {
		lines = append(lines, m.hints(m.keys.Quit))
	}
	for i, l := range lines {
		lines[i] = m.fit(l)
	}
	return lipgloss.JoinVertical(lipgloss.Left, lines...)
}
