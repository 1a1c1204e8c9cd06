package viewer

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui/draw"
)

// Replay speeds, in moves a second: each + doubles, each - halves.
const (
	minSpeed     = 1
	maxSpeed     = 64
	defaultSpeed = 4
)

// maxJumpDigits bounds the move number typed after ':' (a game has far
// fewer than a billion moves).
const maxJumpDigits = 9

// replayer is the screen of a stored game played again: every board was
// rebuilt on the server (game.Replay), so going to any move is an index,
// whatever the game's length. It plays, pauses, changes speed, steps and
// jumps; the score and move number are shown, and each move's new and
// merged tiles are marked as the player saw them.
type replayer struct {
	p        draw.Pane
	keys     *ViewKeyMap
	r        *game.Replay
	embedded bool

	at      int  // the board shown: r.Boards[at], after at moves
	playing bool // the clock moves on a move every 1/speed s
	speed   int  // moves a second
	gen     int  // counts the clocks started; a stopped clock's ticks are dropped
	jumping bool // ':' was typed; the move number follows
	jump    string
	help    bool
	notice  string
	keyLine draw.CachedLine // drawn once for a window
	review  reviewing       // the AI's review (review.go)
	// reviewAtOnce: the review is asked for as the replay opens.
	reviewAtOnce bool
}

// tickMsg moves a replay on by one move.
type tickMsg struct {
	r   *replayer
	gen int
}

// NewReplay is the replay of r run on its own, paused at the start.
func NewReplay(opts ViewOptions, r *game.Replay) *Viewer {
	opts.Defaults()
	return newViewer(newReplayer(opts, r, false), opts.Woken)
}

func newReplayer(opts ViewOptions, r *game.Replay, embedded bool) *replayer {
	rp := &replayer{p: opts.pane(), keys: sharedViewKeys(), r: r,
		embedded: embedded, speed: defaultSpeed}
	if svc, ok := opts.Games.(Reviews); ok {
		rp.review = reviewing{svc: svc, ctx: opts.Context, who: opts.Player, from: opts.From}
	}
	return rp
}

func (rp *replayer) pane() *draw.Pane { return &rp.p }
func (rp *replayer) init() tea.Cmd {
	if rp.reviewAtOnce {
		return rp.makeReview()
	}
	return rp.storedReview()
}
func (rp *replayer) close()    { rp.gen++ }
func (rp *replayer) last() int { return len(rp.r.Dirs) }

func (rp *replayer) Title() string {
	return "2048 · replay of game " + strconv.FormatInt(rp.r.GameID, 10)
}

func (rp *replayer) goodbye() string {
	return "Closed the replay of game " + strconv.FormatInt(rp.r.GameID, 10) + " by " + rp.r.Player + "."
}

// tick is the clock's next move, 1/speed from now.
func (rp *replayer) tick() tea.Cmd {
	return pause(time.Second/time.Duration(rp.speed), tickMsg{rp, rp.gen})
}

// play starts the clock (again, at a new speed).
func (rp *replayer) play() tea.Cmd {
	rp.playing = true
	rp.gen++
	return rp.tick()
}

func (rp *replayer) stop() {
	if rp.playing {
		rp.playing = false
		rp.gen++
	}
}

// goTo shows the board after move n, clamped to the game.
func (rp *replayer) goTo(n int) {
	rp.at = min(max(n, 0), rp.last())
	if rp.at == rp.last() {
		rp.stop()
	}
}

func (rp *replayer) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tickMsg:
		if msg.r != rp || msg.gen != rp.gen || !rp.playing {
			return nil
		}
		rp.goTo(rp.at + 1)
		if rp.playing {
			return rp.tick()
		}
	case reviewMsg:
		if msg.r == rp {
			return rp.reviewed(msg.u)
		}
	case tea.KeyPressMsg:
		return rp.key(msg)
	}
	return nil
}

func (rp *replayer) key(k tea.KeyPressMsg) tea.Cmd {
	ks := rp.keys
	if rp.help {
		if key.Matches(k, ks.Help, ks.Back, ks.Open) {
			rp.help = false
		}
		return nil
	}
	if rp.jumping {
		rp.typeJump(k)
		return nil
	}
	rp.notice = ""
	switch {
	case key.Matches(k, ks.PlayPause):
		if rp.playing {
			rp.stop()
			return nil
		}
		if rp.at == rp.last() {
			rp.at = 0 // from the end, play again from the start
		}
		if rp.last() == 0 {
			return nil
		}
		return rp.play()
	case key.Matches(k, ks.Faster, ks.Slower):
		if key.Matches(k, ks.Faster) {
			rp.speed = min(rp.speed*2, maxSpeed)
		} else {
			rp.speed = max(rp.speed/2, minSpeed)
		}
		if rp.playing {
			return rp.play() // at the new speed from now
		}
	case key.Matches(k, ks.StepBack):
		rp.stop()
		rp.goTo(rp.at - 1)
	case key.Matches(k, ks.StepOn):
		rp.stop()
		rp.goTo(rp.at + 1)
	case key.Matches(k, ks.Start):
		rp.goTo(0)
	case key.Matches(k, ks.End):
		rp.goTo(rp.last())
	case key.Matches(k, ks.Jump):
		rp.jumping, rp.jump = true, ""
	case key.Matches(k, ks.Review) && rp.review.svc != nil:
		return rp.makeReview()
	case key.Matches(k, ks.NextMistake):
		rp.nextMistake()
	case key.Matches(k, ks.TurningPoint):
		rp.turningPoint()
	case key.Matches(k, ks.Help):
		rp.help = true
	case rp.embedded && key.Matches(k, ks.Back):
		return back(rp)
	}
	return nil
}

// typeJump takes a key of the move number typed after ':'.
func (rp *replayer) typeJump(k tea.KeyPressMsg) {
	switch s := k.String(); {
	case s == "enter":
		rp.jumping = false
		if rp.jump == "" {
			return
		}
		n, _ := strconv.Atoi(rp.jump)
		if n > rp.last() {
			rp.notice = "No move " + rp.jump + ": the game has " + strconv.Itoa(rp.last()) + "; here is the last."
		}
		rp.stop()
		rp.goTo(n)
	case s == "esc":
		rp.jumping = false
	case s == "backspace":
		if rp.jump != "" {
			rp.jump = rp.jump[:len(rp.jump)-1]
		}
	case len(s) == 1 && s[0] >= '0' && s[0] <= '9' && len(rp.jump) < maxJumpDigits:
		rp.jump += s
	}
}

// marks are the tiles move rp.at added and merged, as its player saw them.
func (rp *replayer) marks() draw.Marks {
	if rp.at == 0 {
		return draw.Marks{}
	}
	before, d := rp.r.Boards[rp.at-1], rp.r.Dirs[rp.at-1]
	if sp, ok := engine.SpawnOf(before, d, rp.r.Boards[rp.at]); ok {
		return draw.MoveMarks(before, d, sp)
	}
	return draw.Marks{}
}

func (rp *replayer) Render() string {
	p := &rp.p
	if rp.help {
		return rp.helpScreen()
	}
	header := rp.header()
	ms := rp.marks()
	extra := rp.reviewLines()
	board, ok := p.Board(&rp.r.Boards[rp.at], &ms, len(header)+2+len(extra))
	if !ok {
		return p.TooSmall(rp.r.Size, len(header)+2+len(extra), rp.keys.Quit)
	}
	lines := append(header, board...)
	for _, l := range extra {
		lines = append(lines, p.TextLine(l))
	}
	reviewed, canReview := rp.review.rev != nil, rp.review.svc != nil && !rp.review.making
	lines = append(lines, p.TextLine(rp.status()), rp.keyLine.Get(p, "keys "+strconv.FormatBool(reviewed)+strconv.FormatBool(canReview), func() draw.Line {
		return p.KeyLine(rp.keys.ReplayShortHelp(rp.embedded, canReview, reviewed))
	}))
	return draw.CentreLines(lines, p.Width, p.Height)
}

// header is "Replay ann 4×4 #123   Score 1234 +32   Move 150/2000".
func (rp *replayer) header() []draw.Line {
	p, r := &rp.p, rp.r
	var who strings.Builder
	w := p.Inks.Title.Text(&who, "Replay") + 1
	who.WriteByte(' ')
	p.Inks.Value.Text(&who, r.Player)
	w += ansi.StringWidth(r.Player) + 1
	who.WriteByte(' ')
	w += p.Inks.Label.Text(&who, strconv.Itoa(r.Size)+"×"+strconv.Itoa(r.Size)+" #"+strconv.FormatInt(r.GameID, 10))
	if r.Kind != store.KindHuman && r.Kind != "" {
		who.WriteByte(' ')
		w += 1 + p.Inks.Gain.Text(&who, string(r.Kind))
	}
	if !r.Ended {
		who.WriteByte(' ')
		w += 1 + p.Inks.Gain.Text(&who, "in play")
	}
	gain := 0
	if rp.at > 0 {
		gain = r.Scores[rp.at] - r.Scores[rp.at-1]
	}
	move := strconv.Itoa(rp.at) + "/" + strconv.Itoa(rp.last())
	if m, ok := rp.reviewedMove(); ok {
		move += m.Class.Mark()
	}
	return p.Fields("   ", draw.Line{S: who.String(), W: w}, p.Score(r.Scores[rp.at], gain),
		p.Label("Move", move))
}

// status is the line under the board: the move number being typed, a
// notice, or where the replay stands.
func (rp *replayer) status() string {
	speed := strconv.Itoa(rp.speed) + " moves/s"
	switch {
	case rp.jumping:
		return "Go to move: " + rp.jump + "▏ (0 to " + strconv.Itoa(rp.last()) + ", enter; esc cancels)"
	case rp.notice != "":
		return rp.p.Styles.Error.Render(rp.notice)
	case rp.playing:
		return "▶ playing, " + speed
	case rp.at == rp.last() && !rp.r.Ended:
		return "■ the last move so far: the game is still being played"
	case rp.at == rp.last():
		return "■ the end: " + rp.r.Player + " scored " + strconv.Itoa(rp.r.Scores[rp.at])
	}
	return "❚❚ paused, " + speed
}

// helpScreen lists every key of the replay.
func (rp *replayer) helpScreen() string {
	p := &rp.p
	var cols [][]string
	rows := 0
	for _, group := range rp.keys.ReplayHelp(rp.embedded, rp.review.svc != nil) {
		kw := 0
		for _, b := range group {
			if b.Enabled() {
				kw = max(kw, ansi.StringWidth(b.Help().Key))
			}
		}
		var col []string
		for _, b := range group {
			if b.Enabled() {
				k := b.Help().Key
				col = append(col, p.Styles.Help.FullKey.Render(k)+strings.Repeat(" ", kw-ansi.StringWidth(k)+1)+
					p.Styles.Help.FullDesc.Render(b.Help().Desc))
			}
		}
		cols = append(cols, col)
		rows = max(rows, len(col))
	}
	table := draw.JoinColumns(cols, rows)
	if draw.Widest(table) > p.Width { // one column
		table = nil
		for _, col := range cols {
			table = append(table, col...)
		}
	}
	// The table is one block, its lines padded alike, so that centring
	// keeps the columns in line.
	w := draw.Widest(table)
	for i, l := range table {
		table[i] = p.Fit(l + strings.Repeat(" ", w-ansi.StringWidth(l)))
	}
	parts := []string{p.Styles.Title.Render("Replay") + " " + p.Styles.Heading.Render("keys"), ""}
	parts = append(parts, table...)
	parts = append(parts, "", p.Hints(draw.Relabel(rp.keys.Help, "back")))
	return p.Centred(strings.Join(parts, "\n"))
}
