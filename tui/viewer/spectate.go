package viewer

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/tui/watch"
)

// spectator is the screen of one game in play as its player sees it: the
// board with the last move's new and merged tiles marked, the player's
// name, score and moves, whether the game is live, and how many watch.
// What it follows, and the newest snapshot of it, is its watch.Follower's
// (a spectator that falls behind skips to the latest board; the player
// never waits for it); it tells what happens: a takeover, a win, the
// end, the player leaving (the last board stays).
type spectator struct {
	p        draw.Pane
	keys     *ViewKeyMap
	f        watch.Follower
	start    *game.Watch // the game to follow first; nil for TV
	embedded bool

	snap   game.Snapshot // f's newest, as drawn
	have   bool
	marks  draw.Marks
	gain   int
	notice string
	// takeover: the notice is about a takeover, and goes with the next
	// move.
	takeover bool
	// Drawn once, until they change: the key line, the notice and the
	// player's name's width.
	keyLine, noticeLine draw.CachedLine
	nameW               struct {
		name string
		w    int
	}
}

// NewWatch is the screen of w, a game in play, run on its own: who is
// how the spectator named the player ("" when they named the game), so
// that when the player starts another game the spectator follows.
func NewWatch(opts ViewOptions, w *game.Watch, who string) *Viewer {
	opts.Defaults()
	s := newSpectator(opts, false)
	s.f.Mode, s.f.Who, s.start = watch.OneGame, who, w
	if who != "" {
		s.f.Mode = watch.Player
	}
	return newViewer(s, opts.Woken)
}

// NewTV is TV of n×n games run on its own: the best game in play (the
// highest score, game service's Live), switching when it ends or is
// overtaken; while no one plays it says so and waits.
func NewTV(opts ViewOptions, n int) *Viewer {
	opts.Defaults()
	s := newSpectator(opts, false)
	s.f.Mode, s.f.Size = watch.TV, n
	return newViewer(s, opts.Woken)
}

// watchGame is a spectator of w, over a screen below.
func watchGame(opts ViewOptions, w *game.Watch) *spectator {
	s := newSpectator(opts, true)
	s.start = w
	return s
}

func newSpectator(opts ViewOptions, embedded bool) *spectator {
	return &spectator{p: opts.pane(), keys: sharedViewKeys(), embedded: embedded,
		f: watch.Follower{Games: opts.Games, Context: opts.Context, Now: opts.Now}}
}

func (s *spectator) pane() *draw.Pane { return &s.p }

func (s *spectator) init() tea.Cmd {
	w := s.start
	s.start = nil
	return s.f.Start(w)
}

// close stops watching.
func (s *spectator) close() {
	s.f.Close()
	if s.start != nil { // never started
		s.start.Close()
		s.start = nil
	}
}

func (s *spectator) update(msg tea.Msg) tea.Cmd {
	if watch.Owns(msg) {
		ev, cmd := s.f.Update(msg)
		s.tell(ev)
		return cmd
	}
	if msg, ok := msg.(tea.KeyPressMsg); ok && s.embedded && key.Matches(msg, s.keys.Back) {
		return back(s)
	}
	return nil
}

// tell shows what the follower found.
func (s *spectator) tell(ev watch.Event) {
	switch ev.Kind {
	case watch.Snap:
		snap, _ := s.f.Snapshot()
		s.apply(ev.Prev, ev.Had, snap)
	case watch.Switched:
		who := s.snap.Player
		s.snap, s.have, s.marks, s.gain, s.takeover = game.Snapshot{}, false, draw.Marks{}, 0, false
		switch {
		case ev.Started:
			s.notice = who + " started another game."
		case ev.Overtook != "":
			s.notice = ev.Overtook + " overtook " + ev.Leader + "."
		default:
			s.notice = ""
		}
	case watch.NoneLive:
		if s.have && s.snap.Status != game.Live {
			s.notice = s.endedText() + " No one else is playing right now; waiting…"
		}
	}
}

// apply shows snap, the newest of the game, and tells what changed from
// prev (if had).
func (s *spectator) apply(prev game.Snapshot, had bool, snap game.Snapshot) {
	s.snap, s.have = snap, true
	name := snap.Player
	switch {
	case !had:
		s.marks, s.gain = draw.Marks{}, 0
		if snap.Last.Moved {
			s.marks = draw.Marks{On: true, Spawn: snap.Last.Spawn}
		}
	case snap.Moves != prev.Moves:
		s.marks, s.gain = draw.Marks{}, 0
		if snap.Last.Moved {
			s.marks, s.gain = draw.Marks{On: true, Spawn: snap.Last.Spawn}, snap.Last.Gained
			if d, ok := engine.DirectionOf(prev.Board, snap.Board, snap.Last.Spawn); ok && snap.Moves == prev.Moves+1 {
				s.marks = draw.MoveMarks(prev.Board, d, snap.Last.Spawn)
			}
		}
		if s.takeover {
			s.notice, s.takeover = "", false
		}
	}
	switch watch.ChangeOf(prev, had, snap) {
	case watch.TakenOver:
		s.notice, s.takeover = "Taken over by another session of "+name+"; still watching.", true
	case watch.Left:
		s.notice = name + " left; here is the last board."
	case watch.Back:
		s.notice = name + " is back."
	case watch.Ended:
		s.notice = "Game over: " + name + " scored " + strconv.Itoa(snap.Score) + "."
	case watch.Won:
		s.notice = name + " made " + strconv.Itoa(engine.Value(engine.WinExponent(snap.Size))) + "! The game goes on."
	}
}

// endedText is what became of the game on screen.
func (s *spectator) endedText() string {
	if s.snap.Status == game.Left {
		return s.snap.Player + " left."
	}
	return "Game over: " + s.snap.Player + " scored " + strconv.Itoa(s.snap.Score) + "."
}

func (s *spectator) Title() string {
	if s.f.Mode == watch.TV {
		return "2048 · TV"
	}
	if s.have {
		return "2048 · watching " + s.snap.Player
	}
	return "2048 · watching"
}

func (s *spectator) goodbye() string { return s.f.Goodbye() }

// Render is the header, the board, the notice and the keys.
func (s *spectator) Render() string {
	p := &s.p
	quit := s.keys.Quit
	if !s.have {
		text := "Waiting for the game…"
		if s.f.Mode == watch.TV && !s.f.Watching() {
			text = p.Styles.Title.Render("2048 TV") + " " + p.Styles.Label.Render(strconv.Itoa(s.f.Size)+"×"+strconv.Itoa(s.f.Size)) +
				"\n\nNo one is playing right now; waiting…"
		}
		return p.Centred(text + "\n\n" + p.Hints(keyBack(s.keys, s.embedded), quit))
	}
	// Every spectator of a game in step with the others draws the same
	// frame of each move: it is drawn once, for all of them.
	snap := s.snap
	snap.Version = 0 // the same game may come through two feeds (a game moving between nodes)
	return frames.Get(frameKey{snap: snap, width: p.Width, height: p.Height,
		styles: p.Styles, tv: s.f.Mode == watch.TV, embedded: s.embedded, marks: s.marks, gain: s.gain, notice: s.notice}, s.draw)
}

// draw draws the frame of the snapshot on screen.
func (s *spectator) draw() string {
	p := &s.p
	quit := s.keys.Quit
	header := s.header()
	board, ok := p.Board(&s.snap.Board, &s.marks, len(header)+2)
	if !ok {
		return p.TooSmall(s.snap.Size, len(header)+2, quit)
	}
	lines := append(header, board...)
	lines = append(lines,
		s.noticeLine.Get(p, s.notice, func() draw.Line { return p.TextLine(s.notice) }),
		s.keyLine.Get(p, "keys", func() draw.Line {
			return p.KeyLine([]key.Binding{keyBack(s.keys, s.embedded), quit}, []int{0})
		}))
	return draw.CentreLines(lines, p.Width, p.Height)
}

// header is "[TV ·] 2048 ann 4×4 ● live   Score 1234 +32   Moves 321   3 watching",
// on as many lines as the window needs; without the count once the game
// is not live.
func (s *spectator) header() []draw.Line {
	p, sn := &s.p, &s.snap
	var who strings.Builder
	w := 0
	if s.f.Mode == watch.TV {
		w += p.Inks.Title.Text(&who, "TV") + 3
		who.WriteString(" · ")
	}
	w += p.Inks.Title.Text(&who, "2048") + 1
	who.WriteByte(' ')
	if s.nameW.name != sn.Player {
		s.nameW.name, s.nameW.w = sn.Player, ansi.StringWidth(sn.Player)
	}
	p.Inks.Value.Text(&who, sn.Player)
	w += s.nameW.w + 1
	who.WriteByte(' ')
	w += p.Inks.Label.Text(&who, strconv.Itoa(sn.Size)+"×"+strconv.Itoa(sn.Size))
	if sn.Kind != store.KindHuman && sn.Kind != "" {
		who.WriteByte(' ')
		w += 1 + p.Inks.Gain.Text(&who, string(sn.Kind))
	}
	who.WriteByte(' ')
	w++
	switch {
	case sn.Status == game.Live && sn.Won:
		w += p.Inks.Gain.Text(&who, "● live, won")
	case sn.Status == game.Live:
		w += p.Inks.Gain.Text(&who, "● live")
	case sn.Status == game.Left:
		w += p.Inks.Label.Text(&who, "left")
	default:
		w += p.Inks.Label.Text(&who, "game over")
	}
	// The count is of those who watch the game being played: once its
	// player left or it ended, there is no one playing to them, and a
	// count that stays reads as if the game went on.
	var watching draw.Line
	if sn.Status == game.Live {
		var sb strings.Builder
		watching.W = p.Inks.Value.Text(&sb, strconv.Itoa(sn.Watchers)) + p.Inks.Label.Text(&sb, " watching")
		watching.S = sb.String()
	}
	return p.Fields("   ", draw.Line{S: who.String(), W: w}, p.Score(sn.Score, s.gain), p.Label("Moves", strconv.Itoa(sn.Moves)), watching)
}

// frameKey is everything a spectator's frame is drawn from: the
// snapshot itself, not its game and version, so that two games that
// happen to share an id (two services in one process, in tests) never
// share frames.
type frameKey struct {
	snap          game.Snapshot
	width, height int
	styles        *draw.Styles
	tv, embedded  bool
	marks         draw.Marks
	gain          int
	notice        string
}

// frames are spectators' frames lately drawn, for the others in step.
// Hundreds of spectators of one game draw each of its moves within
// milliseconds of each other; a few hundred entries hold every game's
// latest frames.
var frames = draw.NewSharedDrawings[frameKey, string](256)
