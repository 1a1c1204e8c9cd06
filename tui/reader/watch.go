package reader

import (
	"fmt"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/tui/watch"
)

// Spectator is the screen of a game in play told in lines, for watch
// and TV: whose game it is and its board, then each move in a sentence
// as it is made (MoveSentence, the direction found back from the boards),
// the player leaving or coming back, a takeover, a win, the end; on TV,
// each switch to another game and to whose. What it follows, and the
// newest snapshot of it, is its watch.Follower's, as for the visual
// spectator: one that falls behind hears the moves it missed in one
// line, and the player never waits for it. Create it with NewWatch or
// NewTV.
type Spectator struct {
	lines
	f     watch.Follower
	start *game.Watch // the game to follow first; nil for TV

	snap    game.Snapshot // f's newest, as told
	have    bool
	quiet   bool // the moves are not told (space)
	waiting bool // TV: that no one plays was said, and still holds
}

var (
	_ tea.Model   = (*Spectator)(nil)
	_ event.Waker = (*Spectator)(nil)
)

// NewWatch is the screen of w, a game in play: who is how the spectator
// named the player ("" when they named the game), so that when the
// player starts another game the spectator follows.
func NewWatch(opts ViewOptions, w *game.Watch, who string) *Spectator {
	s := newSpectator(opts)
	s.f.Mode, s.f.Who, s.start = watch.OneGame, who, w
	if who != "" {
		s.f.Mode = watch.Player
	}
	return s
}

// NewTV is TV of n×n games: the best game in play (game.BestLive),
// switching when it ends or is overtaken; while no one plays it says so
// and waits.
func NewTV(opts ViewOptions, n int) *Spectator {
	s := newSpectator(opts)
	s.f.Mode, s.f.Size = watch.TV, n
	return s
}

func newSpectator(opts ViewOptions) *Spectator {
	opts.defaults()
	s := &Spectator{f: watch.Follower{Games: opts.Games, Context: opts.Context, Now: opts.Now}}
	if opts.Woken {
		s.f.Slot = event.NewWakeSlot()
	}
	return s
}

// Wake is event.Waker's: the runner waits for the game on screen.
func (s *Spectator) Wake() (news, moved <-chan struct{}) { return s.f.Wake() }

// Init greets the spectator and starts following.
func (s *Spectator) Init() tea.Cmd {
	switch {
	case s.f.Mode == watch.TV:
		s.say(fmt.Sprintf("2048 TV for screen readers: the best %s game being played. Press ? for the keys.", sizeName(s.f.Size)))
	case s.f.Who != "":
		s.say("2048 for screen readers, watching " + s.f.Who + ". Press ? for the keys.")
	default:
		s.say("2048 for screen readers, watching a game. Press ? for the keys.")
	}
	w := s.start
	s.start = nil
	return s.f.Start(w)
}

// View is empty: the screen is a screen.Liner.
func (s *Spectator) View() tea.View { return tea.NewView("") }

// close stops watching.
func (s *Spectator) close() {
	s.f.Close()
	if s.start != nil { // never started
		s.start.Close()
		s.start = nil
	}
}

// Update handles one message: the game's news, the looks, the keys, and
// the messages that end the session.
func (s *Spectator) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, done := s.ending(msg); done {
		s.close()
		return s, cmd
	}
	if watch.Owns(msg) {
		ev, cmd := s.f.Update(msg)
		s.tell(ev)
		return s, cmd
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		return s, s.key(event.NameOf(k))
	}
	return s, nil
}

func (s *Spectator) end(line string) tea.Cmd {
	s.sayLast(line)
	s.close()
	return tea.Quit
}

func (s *Spectator) key(k event.KeyName) tea.Cmd {
	switch {
	case key.Matches(k, viewKeys.Quit):
		return s.end(s.goodbye())
	case key.Matches(k, viewKeys.Help):
		s.say(watchHelp...)
	case key.Matches(k, viewKeys.Board):
		if !s.have {
			s.say(s.nothingOn())
			break
		}
		s.say(BoardLines(s.snap.Board)...)
	case key.Matches(k, viewKeys.Score):
		if !s.have {
			s.say(s.nothingOn())
			break
		}
		s.say(s.statusLine())
	case key.Matches(k, viewKeys.Quiet):
		s.quiet = !s.quiet
		switch {
		case s.quiet:
			s.say("Moves are not told now; space tells them again, b reads the board.")
		case s.have:
			s.say("Each move is told again. " + s.statusLine())
		default:
			s.say("Each move is told again.")
		}
	default:
		s.say(noKey)
	}
	return nil
}

// nothingOn is what b and r say before there is a game to read.
func (s *Spectator) nothingOn() string {
	if s.f.Mode == watch.TV {
		return "No game is on yet: no one is playing " + sizeName(s.f.Size) + " right now."
	}
	return "Waiting for the game."
}

func (s *Spectator) goodbye() string { return s.f.Goodbye() }

// statusLine is r's answer: "ann's 4 by 4 game, live: 12 moves, score
// 340, 2 watching."
func (s *Spectator) statusLine() string {
	sn := &s.snap
	state := "live"
	switch sn.Status {
	case game.Left:
		state = "left"
	case game.Ended:
		state = "game over"
	}
	return fmt.Sprintf("%s's %s, %s: %s.", sn.Player, gameName(sn.Size, "", sn.Kind), state, s.counts())
}

// counts are the game's moves and score, and while it is played, how
// many watch it: the count is of those who watch it being played.
func (s *Spectator) counts() string {
	sn := &s.snap
	c := plural(sn.Moves, "move") + ", score " + strconv.Itoa(sn.Score)
	if sn.Status == game.Live {
		c += ", " + strconv.Itoa(sn.Watchers) + " watching"
	}
	return c
}

// tell says what the follower found.
func (s *Spectator) tell(ev watch.Event) {
	switch ev.Kind {
	case watch.Snap:
		snap, _ := s.f.Snapshot()
		s.apply(ev.Prev, ev.Had, snap)
	case watch.Switched:
		switch {
		case ev.Started:
			s.say(s.snap.Player + " started another game.")
		case ev.Overtook != "":
			s.say(ev.Overtook + " overtook " + ev.Leader + ".")
		}
		s.snap, s.have, s.waiting = game.Snapshot{}, false, false
	case watch.NoneLive:
		switch {
		case s.waiting || (s.have && s.snap.Status == game.Live):
			return // said, or the game on screen's end is on its way
		case s.have:
			s.say("No one else is playing right now; waiting.")
		default:
			s.say("No one is playing " + sizeName(s.f.Size) + " right now; waiting.")
		}
		s.waiting = true
	}
}

// apply takes snap, the newest of the game, and tells what changed from
// prev (if had).
func (s *Spectator) apply(prev game.Snapshot, had bool, snap game.Snapshot) {
	s.snap, s.have = snap, true
	name := snap.Player
	switch {
	case !had:
		what := "Watching "
		if s.f.Mode == watch.TV {
			what = "On TV: "
		}
		s.say(fmt.Sprintf("%s%s's %s: %s.", what, name, gameName(snap.Size, "", snap.Kind), s.counts()))
		s.say(BoardLines(snap.Board)...)
	case snap.Moves != prev.Moves && !s.quiet:
		s.tellMoves(prev, snap)
	}
	if snap.Status == game.Live {
		s.waiting = false // when it stops, TV says again that no one else plays
	}
	switch watch.ChangeOf(prev, had, snap) {
	case watch.TakenOver:
		s.say("Taken over by another session of " + name + "; still watching.")
	case watch.Left:
		s.say(name + " left; b reads the last board.")
	case watch.Back:
		s.say(name + " is back.")
	case watch.Ended:
		s.say("Game over: " + name + " scored " + strconv.Itoa(snap.Score) + ".")
	case watch.Won:
		s.say(name + " made " + winValue(snap.Size) + "! The game goes on.")
	}
}

// tellMoves tells the moves from prev to snap: one move in its sentence,
// several (the spectator fell behind, and skipped to the newest board)
// in one line.
func (s *Spectator) tellMoves(prev, snap game.Snapshot) {
	if snap.Moves == prev.Moves+1 && snap.Last.Moved {
		if d, ok := engine.DirectionOf(prev.Board, snap.Board, snap.Last.Spawn); ok {
			s.say(MoveSentence(Moved{Before: prev.Board, Dir: d, Result: snap.Last, Score: snap.Score}))
			return
		}
	}
	if n := snap.Moves - prev.Moves; n > 0 {
		s.say(fmt.Sprintf("%s made %s meanwhile: %s. b reads the board.", snap.Player, plural(n, "move"), s.counts()))
	}
}
