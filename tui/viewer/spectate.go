package viewer

import (
	"context"
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
	"github.com/ssh2048/ssh2048/tui/event"
)

// What a spectator follows.
type follow int

const (
	followGame   follow = iota // one game, to its end or until its player leaves
	followPlayer               // a player, from one game to their next
	followTV                   // the best game in play of a size
)

// Spectating's clocks.
const (
	// lookEvery is how often a spectator looks again for what to show:
	// TV for a better game, a spectator of a player who left or ended a
	// game for the next one. Live snapshots come as they happen; only
	// these looks are polled.
	lookEvery = time.Second
	// tvHold is how long TV stays on a game that ended, or whose player
	// left, before it moves on: long enough to see how it ended.
	tvHold = 3 * time.Second
)

// spectator is the screen of one game in play as its player sees it: the
// board with the last move's new and merged tiles marked, the player's
// name, score and moves, whether the game is live, and how many watch.
// It shows the newest snapshot the game service has (a spectator that
// falls behind skips to the latest board; the player never waits for
// it), and tells what happens: a takeover, a win, the end, the player
// leaving (the last board stays).
type spectator struct {
	p        draw.Pane
	keys     *ViewKeyMap
	games    Games
	ctx      context.Context
	now      func() time.Time
	mode     follow
	every    time.Duration // lookEvery; shorter in tests
	hold     time.Duration // tvHold; shorter in tests
	who      string        // followPlayer: their name or #tag
	size     int           // followTV: the board size
	embedded bool

	w      *game.Watch
	wait   tea.Cmd         // waits for w's next snapshot
	slot   *event.WakeSlot // or, when the runner wakes the screen (event.Waker), w is waited on there
	snap   game.Snapshot
	have   bool // snap is a snapshot of w
	marks  draw.Marks
	gain   int
	notice string
	// takeover: the notice is about a takeover, and goes with the next
	// move.
	takeover bool
	quietAt  time.Time // when the game on screen stopped being played
	looking  bool      // a look is scheduled
	// Drawn once, until they change: the key line, the notice and the
	// player's name's width.
	keyLine, noticeLine draw.CachedLine
	nameW               struct {
		name string
		w    int
	}
}

// snapMsg is the next snapshot of a watched game.
type snapMsg struct {
	w    *game.Watch
	snap game.Snapshot
	err  error
}

// lookMsg is a spectator's time to look again (see lookEvery).
type lookMsg struct{ s *spectator }

// NewWatch is the screen of w, a game in play, run on its own: who is
// how the spectator named the player ("" when they named the game), so
// that when the player starts another game the spectator follows.
func NewWatch(opts ViewOptions, w *game.Watch, who string) *Viewer {
	opts.Defaults()
	s := newSpectator(opts, false)
	s.mode, s.who = followGame, who
	if who != "" {
		s.mode = followPlayer
	}
	s.w = w
	return newViewer(s, opts.Woken)
}

// NewTV is TV of n×n games run on its own: the best game in play (the
// highest score, game service's Live), switching when it ends or is
// overtaken; while no one plays it says so and waits.
func NewTV(opts ViewOptions, n int) *Viewer {
	opts.Defaults()
	s := newSpectator(opts, false)
	s.mode, s.size = followTV, n
	return newViewer(s, opts.Woken)
}

// watchGame is a spectator of w, over a screen below.
func watchGame(opts ViewOptions, w *game.Watch) *spectator {
	s := newSpectator(opts, true)
	s.w = w
	return s
}

func newSpectator(opts ViewOptions, embedded bool) *spectator {
	return &spectator{p: opts.pane(), keys: sharedViewKeys(), games: opts.Games,
		ctx: opts.Context, now: opts.Now, embedded: embedded, every: lookEvery, hold: tvHold}
}

func (s *spectator) pane() *draw.Pane { return &s.p }

func (s *spectator) init() tea.Cmd {
	if s.mode == followTV {
		return s.look()
	}
	return s.next()
}

// next waits for the watched game's next snapshot. The wait ends with
// the session (s.ctx), or with the next change of the game, which a watch
// closed meanwhile makes itself (it counts one spectator less): the
// answer, for a watch no longer on screen, is dropped. No context of its
// own: deriving one from the session's costs a goroutine per spectator.
func (s *spectator) next() tea.Cmd {
	if s.w == nil {
		return nil
	}
	if s.slot != nil {
		s.slot.Set(s.w) // the runner waits, and sends WakeMsg
		return nil
	}
	if s.wait == nil {
		w, ctx := s.w, s.ctx
		s.wait = func() tea.Msg {
			snap, err := w.Next(ctx)
			return snapMsg{w: w, snap: snap, err: err}
		}
	}
	return s.wait
}

// switchTo watches w instead of the game on screen.
func (s *spectator) switchTo(w *game.Watch, notice string) tea.Cmd {
	s.close()
	s.w, s.snap, s.have, s.marks, s.gain = w, game.Snapshot{}, false, draw.Marks{}, 0
	s.notice, s.takeover = notice, false
	return s.next()
}

// close stops watching.
func (s *spectator) close() {
	if s.slot != nil {
		s.slot.Set(nil)
	}
	if s.w != nil {
		s.w.Close()
	}
	s.w, s.wait = nil, nil
}

func (s *spectator) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case snapMsg:
		if msg.w != s.w || msg.err != nil {
			return nil // a game no longer watched, or the session ending
		}
		s.apply(msg.snap)
		return tea.Batch(s.next(), s.lookLater())
	case event.WakeMsg:
		if s.w == nil {
			return nil
		}
		if snap, ok := s.w.Poll(); ok {
			s.apply(snap)
			return s.lookLater()
		}
	case lookMsg:
		if msg.s != s {
			return nil
		}
		s.looking = false
		return s.look()
	case tea.KeyPressMsg:
		if s.embedded && key.Matches(msg, s.keys.Back) {
			return back(s)
		}
	}
	return nil
}

// apply shows snap, the newest of the game, and tells what changed.
func (s *spectator) apply(snap game.Snapshot) {
	prev, had := s.snap, s.have
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
	if snap.Status != game.Live && (!had || prev.Status == game.Live) {
		s.quietAt = s.now()
	}
	switch {
	case had && snap.TakenOver > prev.TakenOver:
		s.notice, s.takeover = "Taken over by another session of "+name+"; still watching.", true
	case snap.Status == game.Left && (!had || prev.Status != game.Left):
		s.notice = name + " left; here is the last board."
	case snap.Status == game.Live && had && prev.Status == game.Left:
		s.notice = name + " is back."
	case snap.Status == game.Ended && (!had || prev.Status != game.Ended):
		s.notice = "Game over: " + name + " scored " + strconv.Itoa(snap.Score) + "."
	case had && snap.Won && !prev.Won:
		s.notice = name + " made " + strconv.Itoa(engine.Value(engine.WinExponent(snap.Size))) + "! The game goes on."
	}
}

// lookLater schedules a look when there is something to look for: TV
// always, a spectator of a player once the game on screen is no longer
// played.
func (s *spectator) lookLater() tea.Cmd {
	if s.looking || s.mode == followGame || (s.mode == followPlayer && s.snap.Status == game.Live) {
		return nil
	}
	s.looking = true
	return pause(s.every, lookMsg{s})
}

// look looks for what to show next: for TV the best game in play, for a
// spectator of a player the game they play now.
func (s *spectator) look() tea.Cmd {
	var cmd tea.Cmd
	if s.mode == followTV {
		cmd = s.lookTV()
	} else if s.mode == followPlayer && s.have && s.snap.Status != game.Live {
		if snap, ok := s.games.Playing(s.who); ok && snap.GameID != s.snap.GameID && snap.Status == game.Live {
			if w, err := s.games.Watch(snap.GameID); err == nil {
				cmd = s.switchTo(w, snap.Player+" started another game.")
			}
		}
	}
	return tea.Batch(cmd, s.lookLater())
}

// lookTV switches TV to the best game in play when the one on screen has
// been overtaken, or stopped being played tvHold ago, or there is none.
func (s *spectator) lookTV() tea.Cmd {
	best, ok := game.BestLive(s.games.Live(s.size))
	switch {
	case !ok || (s.w != nil && best.GameID == s.snap.GameID):
		if s.have && s.snap.Status != game.Live && !ok {
			s.notice = s.endedText() + " No one else is playing right now; waiting…"
		}
		return nil
	case s.w == nil:
	case !s.have:
		return nil // the first snapshot is on its way
	case s.snap.Status == game.Live && best.Score <= s.snap.Score:
		return nil
	case s.snap.Status != game.Live && s.now().Sub(s.quietAt) < s.hold:
		return nil
	}
	w, err := s.games.Watch(best.GameID)
	if err != nil {
		return nil // it ended meanwhile; the next look finds another
	}
	notice := ""
	if s.have && s.snap.Status == game.Live {
		notice = best.Player + " overtook " + s.snap.Player + "."
	}
	return s.switchTo(w, notice)
}

// endedText is what became of the game on screen.
func (s *spectator) endedText() string {
	if s.snap.Status == game.Left {
		return s.snap.Player + " left."
	}
	return "Game over: " + s.snap.Player + " scored " + strconv.Itoa(s.snap.Score) + "."
}

func (s *spectator) Title() string {
	if s.mode == followTV {
		return "2048 · TV"
	}
	if s.have {
		return "2048 · watching " + s.snap.Player
	}
	return "2048 · watching"
}

func (s *spectator) goodbye() string {
	switch {
	case s.mode == followTV:
		return "Thanks for watching 2048 TV."
	case s.have:
		return "Stopped watching " + s.snap.Player + "."
	}
	return "Stopped watching."
}

// Render is the header, the board, the notice and the keys.
func (s *spectator) Render() string {
	p := &s.p
	quit := s.keys.Quit
	if !s.have {
		text := "Waiting for the game…"
		if s.mode == followTV && s.w == nil {
			text = p.Styles.Title.Render("2048 TV") + " " + p.Styles.Label.Render(strconv.Itoa(s.size)+"×"+strconv.Itoa(s.size)) +
				"\n\nNo one is playing right now; waiting…"
		}
		return p.Centred(text + "\n\n" + p.Hints(keyBack(s.keys, s.embedded), quit))
	}
	// Every spectator of a game in step with the others draws the same
	// frame of each move: it is drawn once, for all of them.
	snap := s.snap
	snap.Version = 0 // the same game may come through two feeds (a game moving between nodes)
	return frames.Get(frameKey{snap: snap, width: p.Width, height: p.Height,
		styles: p.Styles, tv: s.mode == followTV, embedded: s.embedded, marks: s.marks, gain: s.gain, notice: s.notice}, s.draw)
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
	if s.mode == followTV {
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
