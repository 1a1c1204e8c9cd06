package tui

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui/draw"
)

// View draws the current screen. Once the session is ending it leaves the
// alternate screen and prints only the last line, so that line stays in the
// player's terminal after the connection closes.
func (m *Model) View() tea.View {
	if m.final != "" {
		return tea.NewView(m.finalLine() + "\n")
	}
	if top := m.views.Top(); top != nil {
		v := tea.NewView(top.Render())
		v.AltScreen, v.WindowTitle = true, top.Title()
		return v
	}
	return m.mainView(m.render())
}

// mainView is the view of the model's own screens, of content.
func (m *Model) mainView(content string) tea.View {
	v := tea.NewView(content)
	v.AltScreen, v.WindowTitle = true, m.title
	return v
}

// AppendView is View, with the view's text appended to dst rather than
// made a string of its own (Content is left empty): a screen that keeps
// its frames' text in buffers it reuses (screen.ViewAppender) gets the
// game screen's frame, most of what a session allocates a move, without
// an allocation. Other screens are drawn as View draws them, and copied.
func (m *Model) AppendView(dst []byte) (tea.View, []byte) {
	if m.final == "" && m.views.Top() == nil {
		if b, ok := m.appendGame(dst); ok {
			return m.mainView(""), b
		}
	}
	v := m.View()
	dst = append(dst, v.Content...)
	v.Content = ""
	return v, dst
}

// appendGame appends the game screen's frame to dst, if the game screen
// is showing and the board fits the window.
func (m *Model) appendGame(dst []byte) ([]byte, bool) {
	if !m.loaded || m.game == nil || m.screen == screenHelp || m.screen == screenLeaderboard {
		return dst, false
	}
	text := headerTexts.Get().(*[]byte)
	defer headerTexts.Put(text)
	lines, ok := m.gameLines(text)
	if !ok {
		m.headerLines = [2]draw.Line{}
		return dst, false
	}
	dst = draw.AppendCentred(dst, lines, m.width, m.height, &m.drawn)
	// The lines' array is kept for the next frame's, emptied, and the
	// header's: an idle session keeps no frame's text.
	clear(lines)
	m.frameLines, m.headerLines = lines[:0], [2]draw.Line{}
	return dst, true
}

// finalLine is the last line, wrapped by words to the window: the
// terminal would otherwise cut it wherever the edge falls.
func (m *Model) finalLine() string {
	lines := strings.Split(ansi.Wrap(m.final, max(m.width, 10), ""), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func (m *Model) render() string {
	if b, ok := m.appendGame(nil); ok {
		return draw.BytesString(b)
	}
	var body string
	switch {
	case !m.loaded:
		body = "Loading your game…"
	case m.game == nil && m.played && m.screen == screenLeaderboard:
		body = m.leaderboardScreen()
	case m.game == nil && m.played:
		body = m.playedScreen()
	case m.game == nil && m.gone:
		body = m.wrap(draw.Capitalise(game.ErrAccountGone.Error()) + ".")
	case m.game == nil:
		body = m.wrap(m.styles.Error.Render(draw.Capitalise(m.loadErr.Error())) + "\n\nPress q to quit and try again later.")
	case m.screen == screenHelp:
		body = m.helpScreen()
	case m.screen == screenLeaderboard:
		body = m.leaderboardScreen()
	default: // the game screen, in a window too small for it (see appendGame)
		body = m.tooSmall()
	}
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, body)
}

// wrap fits text to the window width.
func (m *Model) wrap(s string) string {
	return lipgloss.NewStyle().Width(max(m.width, 10)).Align(lipgloss.Center).Render(s)
}

// chrome is how many lines the game screen has besides the board: the
// header, the status line and the help line.
func chrome(headerLines int) int { return headerLines + 2 }

// gameLines is the header, the board, the status line and the help line;
// not ok when the window is too small for the board. The confirm dialogs
// are drawn over the board; the win and game-over boxes under it, in
// place of the status and help lines, so that the final board stays in
// sight (on the same two lines when there is no room for a box).
func (m *Model) gameLines(headerText *[]byte) ([]draw.Line, bool) {
	header := m.header(headerText)
	n := m.size
	t, ok := m.pickTier(n, len(header))
	if !ok {
		return nil, false
	}
	if m.cache == nil || m.cache.Tier != t || m.cache.N != n {
		m.cache = draw.SharedBoardCache(m.styles, t, n)
	}
	b := m.shown().Board()
	bw, bh := t.BoardSize(n)
	lines := append(m.frameLines[:0], header...) // see appendGame
	m.drawn = draw.BoardDraw{}
	switch m.screen {
	case screenConfirmNew, screenConfirmAI:
		board := m.cache.Lines(&b, &m.marks)
		// Over the board, and over the two lines under it if it must.
		box := m.box(m.dialog(false))
		if len(box) > bh {
			box = m.box(m.dialog(true))
		}
		over := m.cache.Overlay(board, box)
		for _, s := range over {
			lines = append(lines, draw.Line{S: s, W: max(bw, ansi.StringWidth(s))})
		}
		switch extra := len(over) - len(board); {
		case extra >= 2:
			return lines, true
		case extra == 1:
			return append(lines, m.helpLine()), true
		}
		return append(lines, m.statusLine(), m.helpLine()), true
	default:
		// Drawn straight into the frame: the board is most of its bytes.
		side, sideBytes := m.panelLines(bw, bh)
		m.drawn = draw.BoardDraw{Cache: m.cache, Board: b, Marks: &m.marks, Bytes: m.cache.Size(&b, &m.marks) + sideBytes + len(side)*panelGap,
			At: len(lines), N: bh, Side: side, Gap: panelGap, Motion: m.motionFrame(m.cache, b)}
		w := bw
		if side != nil {
			w += panelGap + panelW
		}
		for range bh {
			lines = append(lines, draw.Line{W: w})
		}
	}
	if m.screen == screenWon || m.screen == screenOver {
		heading, summary, keys := m.endText()
		boxKeys := keys
		if ansi.StringWidth(keys) > m.boxInner() {
			boxKeys = m.endKeys(true)
		}
		if box := m.box(heading + "\n" + summary + "\n" + boxKeys); len(box) <= m.height-len(header)-bh {
			for _, s := range box {
				lines = append(lines, draw.Line{S: s, W: ansi.StringWidth(s)})
			}
			return lines, true
		}
		dot := m.styles.Dim.Render(" · ")
		first := m.fitFirst(heading+dot+summary, heading+dot+m.shortSummary(true), heading+dot+m.shortSummary(false), heading)
		last := m.fitFirst(keys, m.endKeys(true))
		return append(lines, draw.Line{S: first, W: ansi.StringWidth(first)}, draw.Line{S: last, W: ansi.StringWidth(last)}), true
	}
	return append(lines, m.statusLine(), m.helpLine()), true
}

// statusLine is the line under the board: the last hint, error or word
// from the AI, else a guest's notice until they hide it.
func (m *Model) statusLine() draw.Line {
	var s string
	switch {
	case m.notice != "" && m.noticeErr:
		s = m.fit(m.styles.Error.Render(m.notice))
	case m.notice != "":
		s = m.fit(m.notice)
	case m.opts.Guest && !m.guestNoteHidden:
		s = m.guestNote()
	default:
		return draw.Line{}
	}
	return draw.Line{S: s, W: ansi.StringWidth(s)}
}

// guestNote is the guest's notice in the longest form that fits: with
// how to hide it, without, or its first sentence only.
func (m *Model) guestNote() string {
	note := m.opts.GuestNotice
	hide := m.styles.Dim.Render(" · ") + m.hints(draw.Relabel(m.keys.Back, "hides"))
	first, _, _ := strings.Cut(note, ". ")
	if first != note {
		first += "."
	}
	for _, s := range []string{note + hide, note, first + hide, first} {
		if ansi.StringWidth(s) <= m.width {
			return s
		}
	}
	return m.fit(first)
}

func (m *Model) tooSmall() string {
	minW, minH := draw.Tiers[0].BoardSize(m.size)
	minH += chrome(2)
	keys := m.keys.Quit.Help().Key + " quit" // the key map's, in plain text: it is wrapped
	if m.keys.Size.Enabled() {               // not on the daily
		keys = m.keys.Size.Help().Key + " size · " + keys
	}
	return m.wrap(fmt.Sprintf("Window too small\nneed %d×%d, is %d×%d\n%s",
		minW, minH, m.width, m.height, keys))
}

// helpLine is the one-line help under the board, drawn once per window
// width and colour profile: the keys in the key map's order, as many as
// fit; when the window is narrow, the least needed go first (ShortHelp),
// and quit is the last to go.
func (m *Model) helpLine() draw.Line {
	if m.shortHelp.S == "" {
		m.shortHelp = helpLines.Get(helpLineKey{m.keys, m.styles, m.width}, func() draw.Line {
			bindings, dropOrder := m.keys.ShortHelp()
			s := m.fit(draw.KeysThatFit(m.styles, bindings, dropOrder, m.width))
			return draw.Line{S: s, W: ansi.StringWidth(s)}
		})
	}
	return m.shortHelp
}

// helpLines are the game screen's help lines, made once for every session:
// a line depends only on the key map and the styles, which sessions share
// (sharedKeys, draw.SharedStyles), and the width. Drawing one, a style
// render a key, was a large part of a session's first frame, and so of
// the server's CPU while many players logged in at once (the commit that
// brought this in has the figures).
var helpLines = draw.NewSharedDrawings[helpLineKey, draw.Line](256)

type helpLineKey struct {
	keys   *KeyMap
	styles *draw.Styles
	width  int
}

// fits reports whether the board can be drawn at all in the window.
func (m *Model) fits() bool {
	// The header takes a line or two: if the board fits under two, it
	// fits, and the header need not be drawn to count its lines (this
	// runs before every move, and the header is drawn again for the
	// frame).
	if _, ok := m.pickTier(m.size, 2); ok {
		return true
	}
	text := headerTexts.Get().(*[]byte)
	defer headerTexts.Put(text)
	_, ok := m.pickTier(m.size, len(m.header(text)))
	m.headerLines = [2]draw.Line{}
	return ok
}

// pickTier returns the largest tile size whose board fits the window.
func (m *Model) pickTier(n, headerLines int) (draw.Tier, bool) {
	for i := len(draw.Tiers) - 1; i >= 0; i-- {
		w, h := draw.Tiers[i].BoardSize(n)
		if w <= m.width && h+chrome(headerLines) <= m.height {
			return draw.Tiers[i], true
		}
	}
	return draw.Tier{}, false
}

// fit cuts a one-line message to the window width, so that the layout
// never gains a line (bubbles/help does not always truncate either).
func (m *Model) fit(s string) string {
	if lipgloss.Width(s) <= m.width {
		return s
	}
	return ansi.Truncate(s, m.width, "…")
}

// sizeText is "4×4" for a board of size n.
func sizeText(n int) string {
	switch n {
	case 3:
		return "3×3"
	case 4:
		return "4×4"
	case 5:
		return "5×5"
	case 6:
		return "6×6"
	case 7:
		return "7×7"
	case 8:
		return "8×8"
	}
	return strconv.Itoa(n) + "×" + strconv.Itoa(n)
}

// header is "2048 4×4   Score 1234 +32      Best 5000   Rank #12   Moves 321",
// on two lines when the window is narrow, and with less room between
// fields, then without the gain's room and the move count, when it is
// narrower still. "assisted" follows the size in a game the AI helped in;
// Best and Rank are then the player's ranked ones, as `scores` shows
// them, which that game is not part of. The lines' array is the model's,
// until the next call, and their text is written into *text: both are
// good only until the caller gives *text back (see headerTexts).
func (m *Model) header(text *[]byte) []draw.Line {
	k := &m.inks
	title := m.mode.title
	size := sizeText(m.size)
	score := draw.Number("", m.shown().Score())
	assisted := !m.opts.Guest && m.isAssisted()
	bestLabel, best := m.bestField()
	rank, moves := m.rankFigure("–"), draw.Number("", m.shown().Moves())

	// first is "2048 4×4 [assisted]<gap>Score 1234 +32", the gain padded
	// to gainRoom (so that the line does not jump as it comes and goes).
	first := func(b []byte, gap string, gainRoom int) ([]byte, int) {
		b, w := k.title.AppendText(b, title)
		b = append(b, ' ')
		b, n := k.label.AppendText(b, size)
		w += 1 + n
		if assisted {
			b = append(b, ' ')
			b, n = k.gain.AppendText(b, "assisted")
			w += 1 + n
		}
		b = append(b, gap...)
		w += len(gap)
		b, n = k.label.AppendText(b, "Score ")
		w += n
		b, n = k.value.AppendFigure(b, score, 0)
		w += n
		switch {
		case m.lastGain > 0:
			b = append(b, ' ')
			b, n = k.gain.AppendFigure(b, draw.Number("+", m.lastGain), gainRoom)
			w += 1 + n
		case gainRoom > 0:
			b = append(b, ' ')
			b, n = k.gain.AppendText(b, draw.Spaces[:gainRoom])
			w += 1 + n
		}
		return b, w
	}
	watchers := m.shown().Watchers()
	// second is "Best 5000<gap>Rank #12<gap>Moves 321<gap>3 watching",
	// without the moves and spectators when withMoves is not set.
	second := func(b []byte, gap string, withMoves bool) ([]byte, int) {
		b, w := k.label.AppendText(b, bestLabel)
		b, n := k.value.AppendFigure(b, best, 0)
		w += n
		b = append(b, gap...)
		b, n = k.label.AppendText(b, "Rank ")
		w += len(gap) + n
		b, n = k.value.AppendFigure(b, rank, 0)
		w += n
		if withMoves {
			b = append(b, gap...)
			b, n = k.label.AppendText(b, "Moves ")
			w += len(gap) + n
			b, n = k.value.AppendFigure(b, moves, 0)
			w += n
			if watchers > 0 {
				b = append(b, gap...)
				b, n = k.value.AppendFigure(b, draw.Number("", watchers), 0)
				w += len(gap) + n
				b, n = k.label.AppendText(b, " watching")
				w += n
			}
		}
		return b, w
	}
	// The header is centred by a width that does not grow as the
	// figures do (room for a score and best of 6 digits, moves of 4):
	// its left edge stays where it is, and the frame is not redrawn from
	// there on when a figure gains a digit.
	digits := func(f draw.Figure, room int) int { return max(0, room-f.Width()) }
	room1, room2 := digits(score, 6), digits(best, 6)+digits(moves, 4)
	steady := func(l draw.Line, room int) draw.Line {
		if l.W+room <= m.width {
			l.W += room
		}
		return l
	}
	// The lines are pieces of *text, which the frame lends (headerTexts):
	// written into a string of its own every frame, the header was much
	// of what a move's frame allocated. On one line the gain's room keeps the
	// fields apart.
	b, w1 := first((*text)[:0], "   ", 7)
	b, w2 := second(b, "   ", true)
	*text = b
	if w := w1 + w2; w <= m.width {
		m.headerLines[0] = steady(draw.Line{S: draw.BytesString(b), W: w}, room1+room2)
		return m.headerLines[:1]
	}
	layouts := []struct {
		gap       string
		gainRoom  int
		withMoves bool
	}{{"   ", 7, true}, {"  ", 0, true}, {"  ", 0, false}}
	for i, layout := range layouts {
		a, w1 := first((*text)[:0], layout.gap, layout.gainRoom)
		b, w2 := second(a, layout.gap, layout.withMoves)
		*text = b
		if max(w1, w2) <= m.width || i == len(layouts)-1 {
			line1, line2 := draw.BytesString(a), draw.BytesString(b[len(a):])
			m.headerLines = [2]draw.Line{steady(m.fitLine(line1, w1), room1), steady(m.fitLine(line2, w2), room2)}
			return m.headerLines[:]
		}
	}
	return nil
}

// headerBytes is about what a one-line header takes, escape sequences
// included (in true colour; less in fewer colours).
const headerBytes = 256

// headerTexts are the buffers the header is written into: a frame
// borrows one until its lines have been copied into the frame's text
// (appendGame), so that an idle session holds none.
var headerTexts = sync.Pool{New: func() any {
	b := make([]byte, 0, headerBytes)
	return &b
}}

// fitLine cuts a line of width w to the window.
func (m *Model) fitLine(s string, w int) draw.Line {
	if w <= m.width {
		return draw.Line{S: s, W: w}
	}
	s = ansi.Truncate(s, m.width, "…")
	return draw.Line{S: s, W: ansi.StringWidth(s)}
}

// bestField is the header's second field: "Best " and the best score, or
// on the daily challenge "Streak " and the days in a row ("–" for a
// guest).
func (m *Model) bestField() (label string, value draw.Figure) {
	if !m.mode.streak {
		return "Best ", m.bestFigure()
	}
	if m.opts.Guest {
		return "Streak ", draw.Figure{Text: "–"}
	}
	return "Streak ", draw.Number("", m.streak())
}

// bestFigure is the best score to show, "–" when there is no ranked game.
func (m *Model) bestFigure() draw.Figure {
	if best, ok := m.best(); ok {
		return draw.Number("", best)
	}
	return draw.Figure{Text: "–"}
}

// rankFigure is the player's rank on the leaderboard of this size as
// `scores` has it: "#12", "–" without a ranked game, "guest", or loading
// while the standings are being read. On the daily, "–" until the game
// has a move: the day's board has the game from its opening, with 0
// points, and a first player would read "#1" before playing.
func (m *Model) rankFigure(loading string) draw.Figure {
	switch {
	case m.opts.Guest:
		return draw.Figure{Text: "guest"}
	case m.mode.rankAfterMove && m.game != nil && m.shown().Moves() == 0:
		return draw.Figure{Text: "–"}
	case m.standingsFor != m.size:
		return draw.Figure{Text: loading}
	case m.me != nil:
		return draw.Number("#", m.me.Rank)
	}
	return draw.Figure{Text: "–"}
}

// dialog is the text of the box drawn over the board, if any: in full,
// or short for a small window.
func (m *Model) dialog(short bool) string {
	s := m.styles
	switch m.screen {
	case screenConfirmNew:
		text := "This one ends; its score still counts."
		if short {
			text = "This one ends."
		}
		return s.Heading.Render("Start a new game?") + "\n" + text + "\n\n" +
			m.hints(draw.Relabel(m.keys.Yes, "yes"), draw.Relabel(m.keys.No, "no"))
	case screenConfirmAI:
		text := "The AI's help marks this game assisted: it leaves the leaderboard for good."
		if short {
			text = "This game leaves the leaderboard."
		}
		return s.Heading.Render("Ask the AI?") + "\n" + text + "\n\n" +
			m.hints(draw.Relabel(m.keys.Yes, "yes, ask"), draw.Relabel(m.keys.No, "no"))
	}
	return ""
}

// endText is the win or game-over box: its heading, the score line and
// the keys.
func (m *Model) endText() (heading, summary, keys string) {
	s := m.styles
	assisted := ""
	if !m.opts.Guest && m.isAssisted() {
		assisted = s.Dim.Render(" · assisted, not ranked")
	}
	if m.screen == screenWon {
		return s.Title.Render("You made "+strconv.Itoa(engine.Value(engine.WinExponent(m.size)))+"!") + assisted,
			m.summary(false), m.endKeys(false)
	}
	if m.timeUp {
		return s.Heading.Render("The day is over"), m.summary(true), m.endKeys(false)
	}
	return s.Heading.Render("Game over") + assisted, m.summary(true), m.endKeys(false)
}

// summary is the score line of the win and game-over boxes.
func (m *Model) summary(withRank bool) string {
	s := m.styles
	bestLabel, best := m.bestField()
	line := s.Label.Render("Score ") + s.Value.Render(strconv.Itoa(m.shown().Score())) + "   " +
		s.Label.Render(bestLabel) + s.Value.Render(best.String())
	if withRank && !m.opts.Guest {
		line += "   " + s.Label.Render("Rank ") + s.Value.Render(m.rankFigure("…").String())
	}
	return line
}

// dialogText is the widest a dialog's text is let run, for lines a
// person reads at a glance.
const dialogText = 46

// shortSummary is the score line where the window is narrow: the score,
// and the rank if withRank.
func (m *Model) shortSummary(withRank bool) string {
	s := m.styles
	line := s.Label.Render("Score ") + s.Value.Render(strconv.Itoa(m.shown().Score()))
	if withRank && m.screen == screenOver && !m.opts.Guest {
		line += "  " + s.Label.Render("Rank ") + s.Value.Render(m.rankFigure("…").String())
	}
	return line
}

// endKeys are the keys of the win and game-over boxes, in short words if
// short.
func (m *Model) endKeys(short bool) string {
	if m.screen == screenWon {
		if short {
			return m.hints(draw.Relabel(m.keys.KeepGoing, "go on"), draw.Relabel(m.keys.New, "new"))
		}
		return m.hints(m.keys.KeepGoing, m.keys.New)
	}
	if short {
		return m.hints(draw.Relabel(m.keys.New, "new"), m.keys.Review, draw.Relabel(m.keys.Leaderboard, "ranks"), m.keys.Quit)
	}
	return m.hints(m.keys.New, m.keys.Review, m.keys.Leaderboard, m.keys.Quit)
}

// fitFirst is the first of lines that fits the window, or the last one
// cut to it.
func (m *Model) fitFirst(lines ...string) string {
	for _, l := range lines {
		if ansi.StringWidth(l) <= m.width {
			return l
		}
	}
	return m.fit(lines[len(lines)-1])
}

// box draws text in the dialog's border, no wider than the window: the
// text is wrapped by words to fit, never the border cut.
func (m *Model) box(text string) []string {
	b := &m.boxed
	if b.lines == nil || b.text != text || b.styles != m.styles || b.width != m.width {
		lines := strings.Split(m.styles.Dialog.Padding(0, m.boxPadding()).Render(draw.WrapWords(text, m.boxInner())), "\n")
		*b = boxed{text: text, styles: m.styles, width: m.width, lines: lines}
	}
	return b.lines
}

// boxed is the last box drawn and what it was drawn from: a box stays
// on screen for many frames (the end of a game, while its rank and the
// spectators come and go), and lipgloss drawing it was most of such a
// frame's time.
type boxed struct {
	text   string
	styles *draw.Styles
	width  int
	lines  []string // not changed by those who get them
}

// boxPadding is the room either side of a box's text.
func (m *Model) boxPadding() int {
	if m.width < 40 {
		return 1
	}
	return 2
}

// boxInner is the widest a box's text may be.
func (m *Model) boxInner() int {
	return max(min(m.width-2-2*m.boxPadding(), dialogText), 1)
}

// hints renders bindings as "c keep going · n new game", from the key map.
func (m *Model) hints(bs ...key.Binding) string { return draw.HintsIn(m.styles, bs...) }

// helpScreen lists every key. Where the window is wide and tall enough,
// in the key map's columns (moves, game, AI); else each move key on one
// line and as many columns as fit. The introduction and the guest's
// notice follow where there is room; the way back is always there.
func (m *Model) helpScreen() string {
	s := m.styles
	title := s.Title.Render("2048") + " " + s.Heading.Render("keys")
	back := m.hints(draw.Relabel(m.keys.Back, "back"))
	table := m.keyColumns(m.keys.FullHelp())
	if draw.Widest(table) > m.width || len(table)+4 > m.height {
		groups := m.keys.CompactHelp()
		var rest []key.Binding
		for _, group := range groups[1:] {
			rest = append(rest, group...)
		}
		table = append(m.keyTable(groups[0]), m.keyTable(rest)...)
	}
	win := strconv.Itoa(engine.Value(engine.WinExponent(m.size)))
	intro := "Slide the tiles; two equal tiles merge into one. " +
		"Reach " + win + " on this board to win. Each size has its own game and leaderboard. " +
		"Your game is saved after every move; quit any time and carry on later."
	if m.opts.Guest {
		intro += "\n" + m.opts.GuestNotice
	}
	// The table is one block: its lines padded alike, so that centring
	// keeps the columns in line.
	blockW := 0
	for _, l := range table {
		blockW = max(blockW, ansi.StringWidth(l))
	}
	for i, l := range table {
		table[i] = l + strings.Repeat(" ", blockW-ansi.StringWidth(l))
	}
	parts := []string{title}
	spare := m.height - len(table) - 2 // the title and the way back
	if spare >= 2 {
		parts = append(parts, "")
		spare--
	}
	parts = append(parts, table...)
	if introLines := strings.Split(draw.WrapWords(intro, min(m.width, max(blockW, 60))), "\n"); spare >= len(introLines)+2 {
		parts = append(parts, "")
		parts = append(parts, introLines...)
		spare -= len(introLines) + 1
	}
	if spare >= 1 {
		parts = append(parts, "")
	}
	parts = append(parts, back)
	return lipgloss.JoinVertical(lipgloss.Center, parts...)
}

// keyColumns lays groups of bindings out side by side, a group a column.
func (m *Model) keyColumns(groups [][]key.Binding) []string {
	var cols [][]string
	rows := 0
	for _, g := range groups {
		var col []string
		for _, b := range g {
			if b.Enabled() {
				col = append(col, m.keyEntry(b, m.keyWidth(g)))
			}
		}
		if len(col) > 0 {
			cols = append(cols, col)
			rows = max(rows, len(col))
		}
	}
	return draw.JoinColumns(cols, rows)
}

// keyTable lays bindings out in as many columns as fit the width, down
// each column first.
func (m *Model) keyTable(bs []key.Binding) []string {
	var on []key.Binding
	for _, b := range bs {
		if b.Enabled() {
			on = append(on, b)
		}
	}
	kw, entryW := m.keyWidth(on), 0
	for _, b := range on {
		entryW = max(entryW, ansi.StringWidth(m.keyEntry(b, kw)))
	}
	const gap = 4
	ncols := max(1, min(len(on), (m.width+gap)/(entryW+gap)))
	rows := (len(on) + ncols - 1) / ncols
	var cols [][]string
	for c := 0; c*rows < len(on); c++ {
		var col []string
		for _, b := range on[c*rows : min(len(on), (c+1)*rows)] {
			col = append(col, m.keyEntry(b, kw))
		}
		cols = append(cols, col)
	}
	return draw.JoinColumns(cols, rows)
}

// keyWidth is the width of the widest key of bs.
func (m *Model) keyWidth(bs []key.Binding) int {
	w := 0
	for _, b := range bs {
		if b.Enabled() {
			w = max(w, ansi.StringWidth(b.Help().Key))
		}
	}
	return w
}

// keyEntry is "tab  leaderboard": the key, padded to keyW, and what it does.
func (m *Model) keyEntry(b key.Binding, keyW int) string {
	k := b.Help().Key
	return m.styles.Help.FullKey.Render(k) + strings.Repeat(" ", keyW-ansi.StringWidth(k)+1) +
		m.styles.Help.FullDesc.Render(b.Help().Desc)
}

// leaderboardScreen is the top of the board shown for the size (the
// all-time board, today's daily or the race ratings: left and right
// switch), as many rows as the window holds, and the player's own row.
func (m *Model) leaderboardScreen() string {
	s := m.styles
	var lines []string
	top, me, loaded, err := m.shownRows()
	size := s.Label.Render(fmt.Sprintf("%d×%d", m.size, m.size))
	title := s.Title.Render("Leaderboard") + " " + size
	switch {
	case m.board == BoardDaily && m.mode.day != "":
		title = s.Title.Render("Daily "+m.mode.day) + " " + size
	case m.board == BoardDaily:
		title = s.Title.Render("Today's daily") + " " + size
	case m.board == BoardRaces:
		title = s.Title.Render("Race ratings")
	}
	if you := s.Dim.Render(" · you are " + m.opts.Player); m.opts.Player != "" && !m.opts.Guest &&
		ansi.StringWidth(title+you) <= m.width {
		title += you
	}
	lines = append(lines, title)
	boards := m.boards()
	if len(boards) > 1 {
		lines = append(lines, m.boardTabs(boards))
	} else {
		lines = append(lines, "")
	}
	pick := key.NewBinding(key.WithKeys("up"), key.WithHelp("↑↓", "pick"))
	pick.SetEnabled(m.keys.Pick.Enabled())
	tab := draw.Relabel(m.keys.Leaderboard, "back")
	back := m.fitFirst(
		m.hints(tab, m.boardKeys(boards), pick, m.keys.Pick, m.keys.Size, m.keys.Quit),
		m.hints(tab, m.boardKeys(boards), pick, draw.Relabel(m.keys.Pick, "watch"), m.keys.Quit),
		m.hints(tab, m.boardKeys(boards), m.keys.Quit),
		m.hints(tab, m.keys.Quit))
	cols := m.columns()
	note := ""
	empty := "No scores yet for this size."
	switch m.board {
	case BoardDaily:
		empty = "No one has played today's challenge of this size yet."
	case BoardRaces:
		empty = "No rated races yet."
	}
	switch {
	case !loaded:
		lines = append(lines, "Loading…")
	case err != nil:
		lines = append(lines, m.wrapped(s.Error.Render, "Could not load the leaderboard: "+err.Error())...)
	case len(top) == 0 && m.opts.Guest:
		lines = append(lines, m.wrapped(nil, empty+" Guests are not ranked.")...)
	case len(top) == 0 && m.board == BoardAllTime:
		lines = append(lines, m.wrapped(nil, empty+" Be the first!")...)
	case len(top) == 0:
		lines = append(lines, m.wrapped(nil, empty)...)
	default:
		score, tile := "Score", "Tile"
		if m.board == BoardRaces {
			score, tile = "Rating", "Races"
		}
		lines = append(lines, s.Dim.Render(cols.row("", "#", "Player", score, tile)))
		rows, mine, below := m.boardRows()
		picked := -1
		if m.keys.Pick.Enabled() {
			picked = min(m.lbCursor, len(rows)-1)
		}
		for i, st := range rows {
			style, mark := lipgloss.NewStyle(), ""
			if i == mine || (below && i == len(rows)-1) {
				style, mark = s.Me, "›"
			}
			if i == picked {
				style = style.Inherit(s.Selected)
			}
			if below && i == len(rows)-1 {
				lines = append(lines, cols.row("", "⋮", "", "", ""))
			}
			lines = append(lines, style.Render(cols.standingRow(mark, st)))
		}
		switch {
		case m.opts.Guest:
			note = "Guests are not on the leaderboard."
		case me == nil && m.board == BoardRaces:
			note = "No race rating yet: finish a race against players with a key."
		case me == nil:
			note = "You have no ranked score on this board yet."
		}
	}
	if m.lbNotice != "" {
		note = m.lbNotice
	}
	if note := m.wrapped(s.Dim.Render, note); len(note) > 0 && len(lines)+len(note)+3 <= m.height {
		lines = append(append(lines, ""), note...)
	}
	if len(lines)+2 <= m.height {
		lines = append(lines, "")
	}
	lines = append(lines, back)
	for i, l := range lines {
		lines[i] = m.fit(l)
	}
	return strings.Join(lines, "\n")
}

// wrapped is text wrapped by words to the window (see draw.WrappedLines).
func (m *Model) wrapped(render func(...string) string, text string) []string {
	return draw.WrappedLines(text, m.width, render)
}

// boardTabs is the line of the boards' names, the one shown marked.
func (m *Model) boardTabs(boards []Board) string {
	tabs := func(names *[numBoards]string) string {
		parts := make([]string, len(boards))
		for i, b := range boards {
			if b == m.board {
				parts[i] = m.styles.Me.Render("[" + names[b] + "]")
			} else {
				parts[i] = m.styles.Dim.Render(names[b])
			}
		}
		return strings.Join(parts, "  ")
	}
	if t := tabs(&boardNames); ansi.StringWidth(t) <= m.width {
		return t
	}
	return tabs(&boardShortNames)
}

// boardKeys is the key line's "←→ boards", when there are boards to
// switch between.
func (m *Model) boardKeys(boards []Board) key.Binding {
	b := key.NewBinding(key.WithKeys("left"), key.WithHelp("←→", "boards"))
	b.SetEnabled(len(boards) > 1)
	return b
}

// playedScreen is the daily challenge when today's is played already:
// the result and rank, and when the next one opens.
func (m *Model) playedScreen() string {
	s := m.styles
	size := fmt.Sprintf("%d×%d", m.size, m.size)
	title := s.Title.Render("Daily "+m.mode.day) + " " + s.Label.Render(size)
	result := "Loading your result…"
	switch {
	case m.standingsFor == m.size && m.me != nil:
		result = s.Label.Render("Score ") + s.Value.Render(strconv.Itoa(m.me.Score)) + "   " +
			s.Label.Render("Tile ") + s.Value.Render(strconv.Itoa(m.me.MaxTile)) + "   " +
			s.Label.Render("Rank ") + s.Value.Render("#"+strconv.Itoa(m.me.Rank))
	case m.standingsFor == m.size && m.standingsErr != nil:
		result = s.Error.Render("Could not read your result: " + m.standingsErr.Error())
	case m.standingsFor == m.size:
		result = ""
	}
	lines := []string{title, "",
		s.Heading.Render("Already played today."),
		"One attempt a day at each size: your " + size + " game of today is over.",
		result, "",
		"The next challenge opens at 00:00 UTC, in " + m.untilNext() + ".", "",
		m.hints(draw.Relabel(m.keys.Leaderboard, "today's board"), m.keys.Quit)}
	for i, l := range lines {
		lines[i] = m.fit(l)
	}
	return lipgloss.JoinVertical(lipgloss.Center, lines...)
}

// columns are the widths of a leaderboard row's columns for the window:
// the name gives way first, then the tile's column goes.
type columns struct{ rank, name, score, tile int }

func (m *Model) columns() columns {
	c := columns{rank: 4, name: 16, score: 9, tile: 7}
	width := func() int {
		w := 1 + 1 + c.rank + 2 + c.name + 1 + c.score
		if c.tile > 0 {
			w += 1 + c.tile
		}
		return w
	}
	for width() > m.width && c.name > 10 {
		c.name--
	}
	if width() > m.width {
		c.tile = 0
	}
	for width() > m.width && c.score > 7 {
		c.score--
	}
	for width() > m.width && c.name > 4 {
		c.name--
	}
	return c
}

func (c columns) standingRow(mark string, st Standing) string {
	player := st.Player
	if tw := ansi.StringWidth(st.Tag); st.Tag != "" && c.name-1-tw >= 1 {
		// The tag tells look-alike names apart: it stays whole, the name
		// gives way.
		player = ansi.Truncate(player, c.name-1-tw, "…") + " " + st.Tag
	}
	return c.row(mark, strconv.Itoa(st.Rank), player, strconv.Itoa(st.Score), strconv.Itoa(st.MaxTile))
}

// row lays out one leaderboard line; the mark column shows the player's
// own row without colour.
func (c columns) row(mark, rank, player, score, tile string) string {
	// Names may hold any characters: cut and pad them by cells, not bytes.
	player = ansi.Truncate(player, c.name, "…")
	player += strings.Repeat(" ", c.name-ansi.StringWidth(player))
	r := fmt.Sprintf("%-1s %*s  %s %*s", mark, c.rank, rank, player, c.score, score)
	if c.tile > 0 {
		r += fmt.Sprintf(" %*s", c.tile, tile)
	}
	return r
}
