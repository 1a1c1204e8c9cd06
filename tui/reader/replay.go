package reader

import (
	"fmt"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui/event"
)

// maxJumpDigits bounds the move number typed after ':' (a game has far
// fewer than a billion moves), as on the visual replay.
const maxJumpDigits = 9

// Replay is the screen of a stored game told again in lines, a move at a
// time: which game it is and its first board, then each step on in the
// move's sentence and where the replay stands, each step back, jump and
// r in where it stands, b the board. Every board was rebuilt on the
// server (game.Replay), so any move is an index away. Create it with
// NewReplay; the history opens one of its own.
type Replay struct {
	lines
	rp replaying
}

var _ tea.Model = (*Replay)(nil)

// NewReplay is the replay of r, at its start.
func NewReplay(r *game.Replay) *Replay {
	m := &Replay{}
	m.rp = replaying{l: &m.lines, r: r}
	return m
}

// Init tells which game this is, and its first board.
func (m *Replay) Init() tea.Cmd {
	m.rp.intro()
	return nil
}

// View is empty: the screen is a screen.Liner.
func (m *Replay) View() tea.View { return tea.NewView("") }

// Update handles a key, or a message that ends the session.
func (m *Replay) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, done := m.ending(msg); done {
		return m, cmd
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		name := event.NameOf(k)
		if key.Matches(name, viewKeys.Quit) {
			m.sayLast(m.rp.goodbye())
			return m, tea.Quit
		}
		m.rp.key(name)
	}
	return m, nil
}

// replaying is a replay told into l: the Replay screen's own lines, or
// the history's that opened it (back: esc goes back to the list).
type replaying struct {
	l       *lines
	r       *game.Replay
	back    bool
	at      int  // the board told: r.Boards[at], after at moves
	jumping bool // ':' was typed; the move number follows
	jump    string
}

func (rp *replaying) last() int { return len(rp.r.Dirs) }

// intro says which game this is, where the replay stands and the board.
func (rp *replaying) intro() {
	r := rp.r
	n := rp.last()
	what := fmt.Sprintf("%s, final score %d", plural(n, "move"), r.Scores[n])
	if !r.Ended {
		what = fmt.Sprintf("%s so far, score %d; the game is still being played", plural(n, "move"), r.Scores[n])
	}
	title := "2048 for screen readers: the replay"
	if rp.back { // the history's title said the rest
		title = "The replay"
	}
	rp.l.say(fmt.Sprintf("%s of game %d, %s's %s, %s.", title, r.GameID, r.Player, gameName(r.Size, r.Contest, r.Kind), what))
	rp.l.say(rp.position())
	rp.l.say(BoardLines(r.Boards[rp.at])...)
	keys := "Right arrow or l steps on a move, left arrow or h back; press ? for the keys."
	if rp.back {
		keys = "Right arrow or l steps on a move, left arrow or h back; escape goes back to your games; press ? for the keys."
	}
	rp.l.say(keys)
}

func (rp *replaying) goodbye() string {
	return "Closed the replay of game " + strconv.FormatInt(rp.r.GameID, 10) + " by " + rp.r.Player + "."
}

// position is where the replay stands: "Move 12 of 300, score 96.", the
// start and the end said as such.
func (rp *replaying) position() string {
	n, at, score := rp.last(), rp.at, rp.r.Scores[rp.at]
	switch {
	case at == n && rp.r.Ended:
		return fmt.Sprintf("The end: move %d of %d, %s scored %d.", at, n, rp.r.Player, score)
	case at == n && n > 0:
		return fmt.Sprintf("The last move so far: move %d of %d, score %d; the game is still being played.", at, n, score)
	case at == 0:
		return fmt.Sprintf("The start: move 0 of %d, score 0.", n)
	}
	return fmt.Sprintf("Move %d of %d, score %d.", at, n, score)
}

// key handles one key, quit aside; it reports whether the key goes back
// to the screen that opened the replay.
func (rp *replaying) key(k event.KeyName) (back bool) {
	if rp.jumping {
		rp.typeJump(k)
		return false
	}
	switch {
	case key.Matches(k, viewKeys.StepOn):
		rp.stepOn()
	case key.Matches(k, viewKeys.StepBack):
		if rp.at == 0 {
			rp.l.say(fmt.Sprintf("This is the start: move 0 of %d.", rp.last()))
			break
		}
		rp.at--
		rp.l.say(rp.position())
	case key.Matches(k, viewKeys.Start):
		rp.at = 0
		rp.l.say(rp.position())
	case key.Matches(k, viewKeys.End):
		rp.at = rp.last()
		rp.l.say(rp.position())
	case key.Matches(k, viewKeys.Jump):
		rp.jumping, rp.jump = true, ""
		rp.l.say(fmt.Sprintf("Go to move: type its number, 0 to %d, then enter; escape cancels.", rp.last()))
	case key.Matches(k, viewKeys.Board):
		rp.l.say(BoardLines(rp.r.Boards[rp.at])...)
	case key.Matches(k, viewKeys.Score):
		rp.l.say(rp.position())
	case key.Matches(k, viewKeys.Help):
		rp.l.say(replayHelp...)
		if rp.back {
			rp.l.say(replayBackHelp)
		}
	case rp.back && key.Matches(k, viewKeys.Back):
		return true
	default:
		rp.l.say(noKey)
	}
	return false
}

// stepOn tells the next move in its sentence, and where the replay
// stands after it.
func (rp *replaying) stepOn() {
	r, n := rp.r, rp.last()
	if rp.at == n {
		end := "This is the end"
		if !r.Ended {
			end = "This is the last move so far"
		}
		rp.l.say(fmt.Sprintf("%s: move %d of %d. g goes to the start.", end, n, n))
		return
	}
	rp.at++
	before, d, after := r.Boards[rp.at-1], r.Dirs[rp.at-1], r.Boards[rp.at]
	sp, moved := engine.SpawnOf(before, d, after)
	res := engine.Result{Moved: moved, Spawn: sp, Gained: r.Scores[rp.at] - r.Scores[rp.at-1]}
	line := MoveSentence(Moved{Before: before, Dir: d, Result: res, Score: r.Scores[rp.at]}) +
		fmt.Sprintf(" Move %d of %d.", rp.at, n)
	if rp.at == n {
		if r.Ended {
			line += fmt.Sprintf(" The end: %s scored %d.", r.Player, r.Scores[n])
		} else {
			line += " The last move so far: the game is still being played."
		}
	}
	rp.l.say(line)
}

// typeJump takes a key of the move number typed after ':'.
func (rp *replaying) typeJump(k event.KeyName) {
	switch s := k.String(); {
	case s == "enter":
		rp.jumping = false
		if rp.jump == "" {
			rp.l.say("No move number typed; the replay stays where it was.")
			return
		}
		n, _ := strconv.Atoi(rp.jump)
		if n > rp.last() {
			rp.l.say(fmt.Sprintf("No move %s: the game has %d; here is the last.", rp.jump, rp.last()))
			n = rp.last()
		}
		rp.at = n
		rp.l.say(rp.position())
	case s == "esc":
		rp.jumping = false
		rp.l.say("Cancelled; the replay stays where it was.")
	case s == "backspace":
		if rp.jump != "" {
			rp.jump = rp.jump[:len(rp.jump)-1]
		}
	case len(s) == 1 && s[0] >= '0' && s[0] <= '9':
		if len(rp.jump) < maxJumpDigits {
			rp.jump += s
		}
	default:
		rp.l.say("Type the move's number, then enter; escape cancels.")
	}
}
