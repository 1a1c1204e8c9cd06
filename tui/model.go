// Package tui is the game screen every player sees: one Bubble Tea model per
// session, drawing a 2048 board in the original game's colours (or with
// boxes and brackets where there is no colour), with the score, best, rank,
// leaderboard, help, and the win, game-over and confirm dialogs.
//
// The screens that show games without playing them (watch, TV, replay,
// history) are package tui/viewer's; the game screen opens them over
// itself (gameviews.go). The race screens are package tui/racing's. Boards, styles and lines are drawn with
// tui/draw, and the runner's messages are tui/event's.
//
// It knows nothing of SSH: games come in through the Store interface
// (SeatStore is the game service's, which the SSH server and `ssh2048
// play` both use), the AI through the optional Hinter, games to watch and
// replay through the optional Games.
package tui

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/tui/viewer"
)

// Options configure a session's model.
type Options struct {
	Store  Store  // required; NewGuestStore for guests
	Hinter Hinter // optional; nil hides the AI keys
	Player string // the name shown on the leaderboard
	Guest  bool   // not on the leaderboard; told once how to get there

	// GuestNotice is shown to guests under the board until they hide it
	// (its first sentence alone where the window is narrow), and on the
	// help screen. The server knows how players register; the default
	// says to connect with an SSH key. On the daily it is always
	// DailyPracticeNotice.
	GuestNotice string

	// Size is the board size to open, engine.MinSize to engine.MaxSize;
	// 0 means 4 (the server gives the size played last).
	Size int

	// Context is passed to every Store and Hinter call; the server gives
	// the SSH session's context so calls stop when the session does.
	Context context.Context

	// Profile is the colour profile to draw with until Bubble Tea reports
	// the session's own (tea.ColorProfileMsg). Zero means TrueColor.
	Profile colorprofile.Profile
	// Theme is the player's tile colours (the `settings` command,
	// SSH2048_THEME); the screens opened over this one draw in it too.
	Theme draw.Theme

	// AutoDelay is the pause between moves when the AI plays; 0 means 150ms.
	AutoDelay time.Duration

	// Daily, when set, makes the screen today's daily challenge: Store is
	// then DailyStore, the AI, new game and size keys are off, and the
	// header shows the day and the player's streak. A guest's is a
	// practice board, and the screen says so ("Daily practice").
	Daily *Daily

	// Games, if set, lets the player watch games in play and replay
	// ended ones from the leaderboard (↑↓ and enter), and open their own
	// history (g). *game.Service is one.
	Games viewer.Games
	// Self is the session's player, whose history g opens; guests have
	// none.
	Self game.Player
	// From is the session's IP address (viewer.ViewOptions.From).
	From netip.Addr
	// Woken: the runner waits for what the screens opened over the game
	// wait for, and sends event.WakeMsg (see event.Waker); the SSH server does.
	Woken bool
	// Motion: a move slides its tiles and pops its merges for a few
	// frames before the board at rest (see motion.go), where the runner
	// runs it (screen.Animator) and can afford it.
	Motion bool
}

// DefaultGuestNotice is shown to guests when Options.GuestNotice is empty.
const DefaultGuestNotice = "Guest: not saved. To rank, connect with an SSH key."

// DailyPracticeNotice is a guest's notice on the daily challenge, where
// they play a practice board (game.Seat.OpenDaily), in place of
// Options.GuestNotice. It fits 80 columns with the key that hides it.
const DailyPracticeNotice = "A practice board, not today's tiles. Play the daily with an SSH key."

type screen int

const (
	screenGame        screen = iota
	screenConfirmNew         // "start a new game?"
	screenWon                // keep going or new game
	screenOver               // final score, best, rank
	screenLeaderboard        // the size's top rows (leaderboardRows)
	screenHelp               // every key
	screenConfirmAI          // "the AI takes this game off the leaderboard"
)

// leaderboardRows is how many rows the leaderboard shows.
const leaderboardRows = 10

// Model is one session's game screen. Create it with New.
type Model struct {
	opts    Options
	mode    mode // the kind of game: free, or today's daily (mode.go)
	ctx     context.Context
	keys    *KeyMap      // shared by every session (see sharedKeys)
	styles  *draw.Styles // shared by every session (see draw.SharedStyles)
	profile colorprofile.Profile
	light   bool // the terminal answered that its background is light
	cache   *draw.BoardCache
	drawn   draw.BoardDraw // the board of the frame being drawn (see draw.AppendCentred)
	// frameLines is the game screen's lines' array, reused frame to frame,
	// and headerLines the header's.
	frameLines  []draw.Line
	headerLines [2]draw.Line
	boxed       boxed // the last box, kept while its text is the same
	inks        struct{ title, label, value, gain draw.Ink }
	// panel is the side panel as last drawn (panel.go); panelAsked the
	// size whose top rows it asked for.
	panel      panel
	panelAsked int
	// shortHelp is the help line, kept until the width or profile changes.
	shortHelp draw.Line
	// title is the game screen's window title, made once rather than a
	// frame.
	title string

	width, height int

	size     int
	game     Play         // the game on screen, also in games
	games    map[int]Play // the games this session opened, by size
	loaded   bool         // the first Open has been tried
	loadErr  error        // it failed; the screen says so
	screen   screen
	lastGain int
	assisted map[Play]bool // games the store has marked assisted

	notice    string // status line under the board
	noticeErr bool
	// guestNoteHidden: the guest hid their notice (it stays until then).
	guestNoteHidden bool
	// gone: a game could not be opened as the player's account is no
	// more (game.ErrAccountGone, a merge): the seat has told the session,
	// whose notice ends the screen with its line, and nothing says
	// meanwhile that the server failed.
	gone bool

	marks  draw.Marks     // the tiles the last move added and merged
	motion draw.Animation // the last move in flight on screen (motion.go)

	// Leaderboard for the current size, refreshed in a tea.Cmd.
	top          []Standing
	me           *Standing
	standingsErr error
	standingsFor int // the size me belongs to (0: none yet)
	topFor       int // the size top belongs to: read for the leaderboard screen
	// The rank in the header is read again after a move that scores (the
	// store answers from memory, but each read is a command and a frame),
	// one read at a time, at most one every rankEvery: rankBusy while one
	// is out, rankAgain when a move scored meanwhile; rankDue is when the
	// next may start.
	rankBusy, rankAgain bool
	rankDue             time.Time

	pendingAI func() tea.Cmd // what the player asked of the AI, once they confirm

	// moving is the move whose commit is in flight, nil when none; held
	// is what waits for it to return, in arrival order (see Update).
	moving *pendingMove
	held   event.Held
	// inFlight is what moving points to: one move at a time commits, so
	// one is kept for them all (a new one, with the command and the
	// message that returned it, was a key's largest allocation); commit
	// is its command, made once.
	inFlight pendingMove
	commit   tea.Cmd

	hintFor engine.Board // the board the last hint request was for
	auto    bool         // the AI is playing
	autoGen int          // bumps on every toggle, so stale AI moves are dropped

	// The leaderboard screen's boards (boards.go): home is the one the
	// header ranks on (top and me above), board the one shown, other
	// the rows of a board that is not home.
	home, board Board
	other       otherBoard
	// The daily challenge: played is set when today's was played already
	// (there is no game, the screen says so), timeUp when the day ended
	// during the game; movesAtOpen is the game's moves when it opened
	// (the streak counts today once it has a move).
	played, timeUp bool
	movesAtOpen    int

	// views are the screens opened over this one to watch or replay a
	// game, or list the player's own; the top one has the keys.
	views viewer.Stack
	// The leaderboard's row picked with ↑↓ (enter watches or replays
	// its game), and what became of the last enter.
	lbCursor  int
	lbNotice  string
	lbOpening int64 // the game being read for a replay; 0: none

	final string // set when the session ends: the last line it prints
	// failed is set when the session ends because a game could not be
	// loaded or saved (see Failed). Atomic: the server reads it once the
	// screen is done, possibly while a stuck Update still runs.
	failed atomic.Bool
}

var _ tea.Model = (*Model)(nil)

// New returns the model for one session.
func New(opts Options) *Model {
	if opts.Size == 0 {
		opts.Size = 4
	}
	opts.Size = min(max(opts.Size, engine.MinSize), engine.MaxSize)
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.Profile == colorprofile.Unknown {
		opts.Profile = colorprofile.TrueColor
	}
	if opts.AutoDelay == 0 {
		opts.AutoDelay = 150 * time.Millisecond
	}
	md := freeMode
	if opts.Daily != nil {
		md = dailyMode(opts.Daily, opts.Guest)
	}
	switch {
	case opts.Guest && md.guestNotice != "":
		opts.GuestNotice = md.guestNotice
	case opts.Guest && opts.GuestNotice == "":
		opts.GuestNotice = DefaultGuestNotice
	}
	m := &Model{
		opts:     opts,
		mode:     md,
		ctx:      opts.Context,
		games:    map[int]Play{},
		assisted: map[Play]bool{},
		keys: sharedKeys(keySet{ai: opts.Hinter != nil, pick: opts.Games != nil,
			history: opts.Games != nil && !opts.Guest, oneGame: md.oneGame}),
		size:   opts.Size,
		width:  80,
		height: 24,
	}
	m.home, m.board = md.home, md.home
	if opts.Woken {
		m.views.Slot = event.NewWakeSlot()
	}
	m.title = "2048"
	if opts.Player != "" && !opts.Guest {
		m.title = "2048 · " + opts.Player
	}
	m.setProfile(opts.Profile)
	return m
}

func (m *Model) setProfile(p colorprofile.Profile) {
	m.profile = p
	m.styles = draw.ThemedStyles(m.opts.Theme, p, !m.light)
	m.inks.title, m.inks.label = draw.InkOf(m.styles.Title), draw.InkOf(m.styles.Label)
	m.inks.value, m.inks.gain = draw.InkOf(m.styles.Value), draw.InkOf(m.styles.Gain)
	m.cache = nil
	m.shortHelp = draw.Line{}
}

// Init asks the terminal for its background colour, to pick the text
// colours. The game is loaded by the first Update (see load), so that no
// key can reach a game that is not there yet.
func (m *Model) Init() tea.Cmd { return tea.RequestBackgroundColor }

// load opens the game for the current size, once, before the first
// message is handled. It is synchronous for the same reason moves are: the
// player's keys must find the game they will change.
func (m *Model) load() tea.Cmd {
	m.loaded = true
	g, err := m.opts.Store.Open(m.ctx, m.size, false)
	if errors.Is(err, game.ErrDailyPlayed) {
		m.played = true // the screen says so, with the result and rank
		return m.refreshStandings()
	}
	if err != nil {
		return m.storeFailed("load your game", err)
	}
	m.game = g
	m.games[m.size] = g
	m.movesAtOpen = g.Moves()
	if g.Over() {
		m.screen = screenOver
	}
	if m.opts.Guest {
		return m.refreshStandings()
	}
	// The header needs only the player's rank; the leaderboard's top
	// rows, read at every login, were a visible share of the server's
	// CPU while many players logged in at once (the commit that brought
	// this in has the figures). The leaderboard reads them when it
	// opens.
	return m.readRank()
}

// Update handles one message.
//
// A move is committed in a tea.Cmd (Play.Move returns once the move is
// durable), so that Update returns while the commit waits: a screen
// runs Update under its lock, and frames, spectators' news and resizes
// must not wait behind a commit. Until the commit returns (movedMsg) the
// model shows the game as it was before the move (shown), never calls
// the Play (its reads wait for the commit), and holds every message
// that could touch the game (keys, the AI's answers, the messages that
// end the session) to handle them in arrival order once it returns, as
// if Update had waited. So every key is applied in order against the
// board the previous key left, and no frame shows a move before it is
// saved. KeysPending tells package screen that a key's frame is still
// to come.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.final != "" {
		return m, nil // ending: nothing more happens
	}
	var first tea.Cmd
	if !m.loaded {
		first = m.load()
		if m.final != "" {
			return m, first
		}
	}
	if m.moving != nil && waitsForMove(msg) {
		m.held.Hold(msg)
		return m, first
	}
	cmd := m.update(msg)
	return m, tea.Batch(first, cmd, m.panelStandings())
}

// waitsForMove reports whether msg must wait for the move in flight: it
// reads or changes the game, or ends the session, whose last line says
// the game is saved.
func waitsForMove(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.KeyPressMsg, hintMsg, autoMsg,
		event.TakenOverMsg, event.ShutdownMsg, event.EndMsg:
		return true
	}
	return false
}

// KeysPending is screen.KeyWaiter's: a move's commit is in flight, and
// with it the frame of its key and of the keys held behind it; nothing
// is drawn until it returns.
func (m *Model) KeysPending() bool { return m.moving != nil }

// release handles the messages held while a move committed, in order,
// until one starts another move (the rest wait for that one) or ends the
// session.
func (m *Model) release() tea.Cmd {
	cmd := m.held.Release(m.update, func() bool { return m.moving != nil || m.final != "" })
	if m.final != "" {
		m.held.Drop()
	}
	return cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	if cmd, done := m.updateViews(msg); done {
		return cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.cache = nil
		m.shortHelp = draw.Line{}
	case tea.ColorProfileMsg:
		m.setProfile(msg.Profile)
	case tea.BackgroundColorMsg:
		m.light = !msg.IsDark()
		m.setProfile(m.profile)
	case event.TakenOverMsg:
		if msg.Text != "" {
			return m.end(msg.Text)
		}
		return m.takenOver()
	case event.ShutdownMsg:
		if msg.Text != "" {
			return m.end(msg.Text)
		}
		return m.end("The server is restarting. Your game is saved; reconnect in a moment to carry on.")
	case event.EndMsg:
		return m.end(msg.Text)
	case standingsMsg:
		return m.standingsArrived(msg)
	case hintMsg:
		return m.hintArrived(msg)
	case autoMsg:
		return m.autoArrived(msg)
	case *movedMsg:
		return m.moved(msg)
	case WatchersMsg:
		return nil // the header shows the new count in the frame that follows
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return nil
}

// key handles a key press on whatever screen is showing.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	m.stopMotion()
	k := event.NameOf(msg)
	if key.Matches(k, m.keys.Quit) {
		return m.quit()
	}
	if m.game == nil && !m.played {
		return nil // load failed; only quit works
	}
	switch m.screen {
	case screenHelp:
		if key.Matches(k, m.keys.Help, m.keys.Back) {
			m.screen = screenGame
		}
		return nil
	case screenLeaderboard:
		switch {
		case m.opts.Games != nil && key.Matches(k, m.keys.Up, m.keys.Down, m.keys.Pick):
			return m.pickRow(k)
		case key.Matches(k, m.keys.Leaderboard, m.keys.Back):
			m.screen = m.gameScreen()
		case key.Matches(k, m.keys.PrevBoard):
			m.lbCursor, m.lbNotice = 0, ""
			return m.switchBoard(-1)
		case key.Matches(k, m.keys.NextBoard):
			m.lbCursor, m.lbNotice = 0, ""
			return m.switchBoard(+1)
		case m.sizeKey(k):
			cmd := m.switchSize(m.wantedSize(k))
			m.screen = screenLeaderboard
			if m.board != m.home {
				return tea.Batch(cmd, m.refreshBoard())
			}
			return cmd
		}
		return nil
	case screenConfirmNew:
		switch {
		case key.Matches(k, m.keys.Yes):
			return m.newGame()
		case key.Matches(k, m.keys.No):
			m.screen = screenGame
		}
		return nil
	case screenConfirmAI:
		switch {
		case key.Matches(k, m.keys.Yes):
			m.screen = screenGame
			ask := m.pendingAI
			m.pendingAI = nil
			cmd, marked := m.markAssisted()
			if !marked || m.final != "" || ask == nil {
				return cmd
			}
			return tea.Batch(cmd, ask())
		case key.Matches(k, m.keys.No):
			m.screen, m.pendingAI = screenGame, nil
		}
		return nil
	case screenWon:
		switch {
		case key.Matches(k, m.keys.New):
			return m.newGame()
		case key.Matches(k, m.keys.KeepGoing):
			m.screen = screenGame
		}
		return nil
	}

	if m.game == nil { // today's daily is played: only its board to see
		if key.Matches(k, m.keys.Leaderboard) {
			m.screen = screenLeaderboard
			return m.refreshBoard()
		}
		return nil
	}
	// The game screen, or game over.
	switch {
	case key.Matches(k, m.keys.Help):
		m.stopAuto() // the AI does not play where the player cannot watch
		m.screen = screenHelp
		return nil
	case key.Matches(k, m.keys.Leaderboard):
		m.stopAuto()
		m.screen = screenLeaderboard
		m.lbNotice = ""
		return m.refreshBoard()
	case key.Matches(k, m.keys.History):
		m.stopAuto()
		return m.openView(viewer.HistoryOver(m.viewOptions(), m.opts.Self))
	case m.sizeKey(k):
		if n := m.wantedSize(k); n != m.size || key.Matches(k, m.keys.Size) {
			return m.switchSize(n)
		}
		m.notice, m.noticeErr = m.sizeBoundText(), false
		return nil
	case m.screen == screenOver && key.Matches(k, m.keys.Review):
		return m.reviewGame()
	case key.Matches(k, m.keys.New):
		if m.screen == screenOver {
			return m.newGame()
		}
		m.stopAuto()
		m.screen = screenConfirmNew
		return nil
	}
	if m.screen == screenOver {
		return nil
	}
	if key.Matches(k, m.keys.Back) && m.opts.Guest && m.notice == "" {
		m.guestNoteHidden = true
		return nil
	}
	if d, ok := m.direction(k); ok {
		if !m.fits() {
			return nil // the player cannot see the board; the screen says why
		}
		m.stopAuto()
		return m.move(d)
	}
	switch {
	case key.Matches(k, m.keys.Hint):
		return m.confirmAI(m.askHint)
	case key.Matches(k, m.keys.Auto):
		if m.auto {
			return m.toggleAuto()
		}
		return m.confirmAI(m.toggleAuto)
	}
	if why := m.offText(k); why != "" {
		m.notice, m.noticeErr = why, false
	}
	return nil
}

// offText is why k, a key the key map has but this screen turned off,
// does nothing; "" for any other key. A key that does nothing and says
// nothing looks broken.
func (m *Model) offText(k event.KeyName) string {
	ks := m.keys
	off := func(bs ...key.Binding) bool {
		return slices.ContainsFunc(bs, func(b key.Binding) bool { return turnedOff(k, b) })
	}
	switch {
	case off(ks.History) && m.opts.Guest:
		return "Guests have no saved games: connect with a key to keep them."
	case m.mode.oneGame && off(ks.New, ks.Size, ks.Bigger, ks.Smaller, ks.Hint, ks.Auto):
		return m.mode.offOneGame
	case m.mode.oneGame && off(ks.History):
		return m.mode.offHistory
	case off(ks.Hint, ks.Auto):
		return "The AI is off on this server."
	}
	return ""
}

// sizeBoundText is why + or - left the size as it was: it is the last.
func (m *Model) sizeBoundText() string {
	if m.size == engine.MaxSize {
		return sizeText(m.size) + " is the largest board."
	}
	return sizeText(m.size) + " is the smallest board."
}

// confirmAI does what the player asked of the AI, after asking them once
// per ranked game: the AI's help takes the game off the leaderboard, and a
// good game should not leave it by a stray key.
func (m *Model) confirmAI(ask func() tea.Cmd) tea.Cmd {
	if m.opts.Guest || m.isAssisted() {
		return ask()
	}
	m.stopAuto()
	m.pendingAI = ask
	m.screen = screenConfirmAI
	return nil
}

// gameScreen is the screen to go back to from the leaderboard.
func (m *Model) gameScreen() screen {
	if m.game != nil && (m.shown().Over() || m.timeUp) {
		return screenOver
	}
	return screenGame
}

func (m *Model) direction(k event.KeyName) (engine.Direction, bool) {
	return event.KeyDirection(k, m.keys.Up, m.keys.Down, m.keys.Left, m.keys.Right)
}

func (m *Model) sizeKey(k event.KeyName) bool {
	return key.Matches(k, m.keys.Size, m.keys.Bigger, m.keys.Smaller)
}

func (m *Model) wantedSize(k event.KeyName) int {
	switch {
	case key.Matches(k, m.keys.Bigger):
		return min(m.size+1, engine.MaxSize)
	case key.Matches(k, m.keys.Smaller):
		return max(m.size-1, engine.MinSize)
	}
	return int(k.String()[0] - '0')
}

// pendingMove is a move whose commit is in flight.
type pendingMove struct {
	play   Play
	ctx    context.Context
	dir    engine.Direction
	before shownGame // the game as it was, shown until the commit returns
	// auto is set for the AI's move; notice is the status line to put
	// back once it is played.
	auto   bool
	notice string
	// moved is what the commit returns, written by the command.
	moved movedMsg
}

// movedMsg is a move's commit returning (as a pointer: Update's message
// is the pendingMove's own).
type movedMsg struct {
	res engine.Result
	err error
}

// KeysDone is screen.KeysDone's: the frame that shows a move goes out at
// once.
func (*movedMsg) KeysDone() {}

// move plays d in a tea.Cmd; the frame shows it once it is saved (see
// Update).
func (m *Model) move(d engine.Direction) tea.Cmd {
	return m.startMove(d, false, "")
}

// startMove plays d, or the AI's move when auto is set, and keeps it
// in m.inFlight until its commit returns: no other starts meanwhile, as
// the keys wait for it (Update).
func (m *Model) startMove(d engine.Direction, auto bool, notice string) tea.Cmd {
	g := m.game
	m.inFlight = pendingMove{play: g, ctx: m.ctx, dir: d, auto: auto, notice: notice,
		before: shownGame{board: g.Board(), score: g.Score(), moves: g.Moves(), won: g.Won(), over: g.Over(),
			watchers: g.Watchers(), assisted: m.isAssisted()}}
	m.moving = &m.inFlight
	if m.commit == nil {
		m.commit = m.commitMove
	}
	return m.commit
}

// commitMove is the command of the move in flight. It runs beside
// Update, which leaves m.inFlight alone until the message it returns
// comes back.
func (m *Model) commitMove() tea.Msg {
	p := &m.inFlight
	p.moved.res, p.moved.err = p.play.Move(p.ctx, p.dir)
	return &p.moved
}

// moved shows the move whose commit returned, then handles what was held
// meanwhile.
func (m *Model) moved(msg *movedMsg) tea.Cmd {
	p := m.moving
	if p == nil {
		return nil
	}
	m.moving = nil
	cmd := m.showMove(p, msg.res, msg.err)
	return tea.Batch(cmd, m.release())
}

// showMove shows the result of a move, saved or not.
func (m *Model) showMove(p *pendingMove, res engine.Result, err error) tea.Cmd {
	if err != nil {
		cmd := m.moveFailed(err)
		if m.final == "" && p.auto {
			m.stopAuto()
		}
		return cmd
	}
	if !res.Moved {
		if p.auto && m.auto {
			m.stopAuto()
			m.setError("The AI suggested a move that changes nothing; it stopped.")
		}
		return nil // nothing changed, nothing stored
	}
	m.marks = draw.Marks{On: true, Spawn: res.Spawn, Merged: p.before.board.Merges(p.dir)}
	m.startMotion(p.before.board, p.dir, res.Gained > 0)
	m.lastGain = res.Gained
	// A hint was about the board before this move, and an error is
	// behind us once a move is saved.
	m.notice, m.noticeErr = "", false
	var cmd tea.Cmd
	switch {
	case m.game.Over():
		m.stopAuto()
		m.screen = screenOver
		cmd = m.refreshStandings()
	case !p.before.won && m.game.Won():
		m.stopAuto()
		m.screen = screenWon
		cmd = m.refreshStandings()
	case res.Gained > 0,
		// A new player's first move puts them on the leaderboard, and the
		// daily's first one is when the header first ranks the player.
		m.game.Moves() == 1 && (m.me == nil || m.mode.rankAfterMove):
		cmd = m.refreshRank()
	}
	if p.auto && m.auto {
		m.notice = p.notice
		return tea.Batch(cmd, m.nextAuto())
	}
	return cmd
}

// shownGame is the game as a frame shows it while a move commits: as it
// was before the move.
type shownGame struct {
	board                  engine.Board
	score, moves, watchers int
	won, over, assisted    bool
}

func (g *shownGame) Board() engine.Board { return g.board }
func (g *shownGame) Score() int          { return g.score }
func (g *shownGame) Moves() int          { return g.moves }
func (g *shownGame) Won() bool           { return g.won }
func (g *shownGame) Over() bool          { return g.over }
func (g *shownGame) Watchers() int       { return g.watchers }

// gameShown is what a frame reads of the game.
type gameShown interface {
	Board() engine.Board
	Score() int
	Moves() int
	Won() bool
	Over() bool
	Watchers() int
}

// shown is the game as frames show it: the Play, or while a move commits
// the game as it was before the move.
func (m *Model) shown() gameShown {
	if m.moving != nil {
		return &m.moving.before
	}
	return m.game
}

// moveFailed handles a move that was not saved. The board on screen must
// be the stored one, so the game is opened again from the store; if even
// that fails the session ends rather than show a game that is not saved.
func (m *Model) moveFailed(err error) tea.Cmd {
	if errors.Is(err, game.ErrTakenOver) {
		return m.takenOver()
	}
	if errors.Is(err, game.ErrMovedAccount) {
		// The key joined another account: the session is being told
		// to end, and says why; the account it left has no game to open.
		return nil
	}
	if errors.Is(err, game.ErrTimeUp) {
		// The contest's time is over: the game stands as it was.
		m.timeUp, m.screen = true, screenOver
		return m.refreshStandings()
	}
	m.stopAuto()
	m.marks = draw.Marks{}
	m.game.Close()
	delete(m.games, m.size)
	g, rerr := m.opts.Store.Open(m.ctx, m.size, false)
	if errors.Is(rerr, game.ErrAccountGone) {
		m.game, m.gone = nil, true
		return nil
	}
	if rerr != nil {
		m.failed.Store(true)
		return m.end(event.NotSavedLine)
	}
	m.game, m.games[m.size], m.lastGain = g, g, 0
	m.screen = m.gameScreen()
	m.setError("Could not save that move; the board is as last saved.")
	return nil
}

func (m *Model) takenOver() tea.Cmd {
	return m.end(TakenOverText(m.size))
}

// TakenOverText is the last line of a session whose n×n game a newer
// session took over.
func TakenOverText(n int) string {
	return fmt.Sprintf("Your %d×%d game was opened in a newer session, which takes over from here; nothing was lost.", n, n)
}

// Failed reports whether the session ended because a game could not be
// loaded or saved, rather than by the player's choice or the server's
// notice. Safe to call from any goroutine.
func (m *Model) Failed() bool { return m.failed.Load() }

// storeFailed ends the session on a storage error that leaves no saved
// game to show, or says so on the status line when there is one; a game
// that could not be opened as the account is gone is left to the
// session's notice (gone).
func (m *Model) storeFailed(what string, err error) tea.Cmd {
	if errors.Is(err, game.ErrTakenOver) {
		return m.takenOver()
	}
	if errors.Is(err, game.ErrAccountGone) {
		m.gone = true
		return nil
	}
	if m.game == nil {
		m.loadErr = fmt.Errorf("could not %s: %w", what, err)
		return nil
	}
	m.setError(fmt.Sprintf("Could not %s: %v", what, err))
	return nil
}

func (m *Model) setError(s string) { m.notice, m.noticeErr = s, true }

func (m *Model) newGame() tea.Cmd {
	g, err := m.opts.Store.Open(m.ctx, m.size, true)
	if err != nil {
		m.screen = m.gameScreen()
		return m.storeFailed("start a new game", err)
	}
	if old := m.games[m.size]; old != nil && old != g {
		old.Close()
	}
	m.startGame(g)
	return m.refreshStandings()
}

// switchSize shows the game of another size, from the store. The game of
// the size left is given up: a session holds only the game on screen, so
// that another session of the player opening that size does not take
// this one over.
func (m *Model) switchSize(n int) tea.Cmd {
	if n == m.size {
		m.screen = m.gameScreen()
		return nil
	}
	g, err := m.opts.Store.Open(m.ctx, n, false)
	if err != nil {
		return m.storeFailed(fmt.Sprintf("open your %d×%d game", n, n), err)
	}
	if old := m.games[m.size]; old != nil {
		old.Close()
		delete(m.games, m.size)
	}
	m.size = n
	m.top, m.me, m.standingsErr, m.standingsFor, m.topFor = nil, nil, nil, 0, 0
	m.rankAgain = false
	m.lbCursor, m.lbNotice = 0, ""
	m.startGame(g)
	return m.refreshStandings()
}

// startGame shows g, of the current size, as the current game.
func (m *Model) startGame(g Play) {
	m.stopAuto()
	m.game, m.games[m.size], m.lastGain = g, g, 0
	m.notice, m.noticeErr = "", false
	m.marks = draw.Marks{}
	m.cache = nil
	m.screen = m.gameScreen()
}

func (m *Model) quit() tea.Cmd {
	if m.game == nil && m.loadErr != nil {
		m.failed.Store(true)
		return m.end(draw.Capitalise(m.loadErr.Error()) + ". Please try again later.")
	}
	if m.opts.Guest {
		return m.end("Thanks for playing! Connect with an SSH key to keep your games.")
	}
	switch ended := m.game != nil && (m.game.Over() || m.timeUp); {
	case ended && m.mode.endedLine != "":
		return m.end(m.mode.endedLine)
	case ended:
		return m.end("Your game is over and saved; a new one starts when you come back.")
	}
	return m.end("Your game is saved; it will be waiting when you come back.")
}

// end shows the last line, closes the games and quits.
func (m *Model) end(line string) tea.Cmd {
	m.stopAuto()
	m.final = line
	m.views.CloseAll()
	for _, g := range m.games {
		g.Close()
	}
	return tea.Quit
}

// standingsMsg carries a leaderboard read from a tea.Cmd.
type standingsMsg struct {
	board    Board
	size     int
	top      []Standing
	me       *Standing
	err      error
	rankOnly bool // only me was read (refreshRank)
}

// refreshStandings reads the leaderboard for the current size in a
// tea.Cmd: it is a read that nothing waits on, so it stays off the
// Update loop.
func (m *Model) refreshStandings() tea.Cmd {
	store, ctx, size, home := m.opts.Store, m.ctx, m.size, m.home
	return func() tea.Msg {
		top, me, err := store.Standings(ctx, size, leaderboardRows)
		return standingsMsg{board: home, size: size, top: top, me: me, err: err}
	}
}

// rankEvery is the shortest time between two reads of the player's rank
// for the header. Moves that score come more often than a player reads the
// header, and each read is a command and a frame (the store answers from
// memory now; when it read SQL, reading after every scoring move was the
// largest single item in the server's CPU profile under load, and the
// commit that brought this in has the figures). A scoring move within
// rankEvery of the last read does not read it; the next one after does.
// (Reading later on a timer instead would change the header between moves,
// which a player does not expect and the load tool takes for a move.)
var rankEvery = 2 * time.Second

// refreshRank reads the player's own row again, for the header, unless a
// read is out already (then it is read once more when that one is back) or
// the last began less than rankEvery ago.
func (m *Model) refreshRank() tea.Cmd {
	if m.opts.Guest {
		return nil
	}
	if m.rankBusy {
		m.rankAgain = true
		return nil
	}
	now := time.Now()
	if now.Before(m.rankDue) {
		return nil
	}
	m.rankDue = now.Add(rankEvery)
	return m.readRank()
}

// readRank reads the player's own row in a tea.Cmd, one read at a time
// (rankBusy); unlike refreshRank it does not count against rankEvery, so
// that the login's read does not hold back the first scoring move's.
func (m *Model) readRank() tea.Cmd {
	m.rankBusy = true
	store, ctx, size, home := m.opts.Store, m.ctx, m.size, m.home
	return func() tea.Msg {
		_, me, err := store.Standings(ctx, size, 0)
		return standingsMsg{board: home, size: size, me: me, err: err, rankOnly: true}
	}
}

func (m *Model) standingsArrived(msg standingsMsg) tea.Cmd {
	if msg.rankOnly {
		m.rankBusy = false
	}
	if msg.size != m.size {
		return nil
	}
	if msg.board != m.home {
		if msg.board == m.board {
			m.other = otherBoard{board: msg.board, size: msg.size, top: msg.top, me: msg.me, err: msg.err}
		}
		return nil
	}
	switch {
	case !msg.rankOnly:
		m.top, m.me, m.standingsErr, m.standingsFor, m.topFor = msg.top, msg.me, msg.err, msg.size, msg.size
	case msg.err == nil:
		// The rank is known; the top rows are read when the leaderboard
		// is opened, or again for the side panel when the rank moved.
		if msg.me != nil && (m.me == nil || m.me.Rank != msg.me.Rank) && m.panelAsked == m.size {
			m.panelAsked = 0
		}
		m.me = msg.me
		if m.standingsFor != m.size {
			m.standingsErr, m.standingsFor = nil, m.size
		}
	}
	if m.rankAgain {
		m.rankAgain = false
		return m.refreshRank()
	}
	return nil
}

// best is the player's best score for the size as the leaderboard ranks
// it: their best human game, counting the one on screen, which the
// stored standings may not include yet. An assisted game does not count;
// ok is false when there is no ranked game.
func (m *Model) best() (score int, ok bool) {
	if !m.isAssisted() && !m.opts.Guest {
		score, ok = m.shown().Score(), true
	}
	if m.me != nil && m.me.Score >= score {
		score, ok = m.me.Score, true
	}
	if m.opts.Guest {
		score, ok = m.shown().Score(), true
	}
	return score, ok
}

// isAssisted reports whether the AI has helped in the game on screen:
// the game says so when it can (a resumed assisted game), else this
// session remembers.
func (m *Model) isAssisted() bool {
	if m.moving != nil {
		return m.moving.before.assisted
	}
	if g, ok := m.game.(interface{ Kind() store.Kind }); ok && g.Kind() == store.KindAssisted {
		return true
	}
	return m.assisted[m.game]
}

// markAssisted tells the store, once per game, that the AI touched it,
// and reads the standings again: the game no longer counts for them.
func (m *Model) markAssisted() (tea.Cmd, bool) {
	if m.isAssisted() {
		return nil, true
	}
	// Noted as assisted once the store has it so, not before: the AI's
	// answer is shown or played only on a game marked, never on one
	// that still ranks among human games.
	if err := m.game.MarkAssisted(m.ctx); err != nil {
		if errors.Is(err, game.ErrTakenOver) {
			return m.takenOver(), false
		}
		m.setError(fmt.Sprintf("Could not mark the game as AI-assisted: %v", err))
		return nil, false
	}
	m.assisted[m.game] = true
	if m.opts.Guest {
		return nil, true
	}
	return m.refreshStandings(), true
}

// hintMsg carries a Hinter's suggestion for a board.
type hintMsg struct {
	board engine.Board
	dir   engine.Direction
	err   error
}

func (m *Model) askHint() tea.Cmd {
	b := m.game.Board()
	m.hintFor = b
	m.notice, m.noticeErr = "Thinking…", false
	h, ctx := m.opts.Hinter, m.ctx
	return func() tea.Msg {
		d, err := h.Hint(ctx, b)
		return hintMsg{board: b, dir: d, err: err}
	}
}

func (m *Model) hintArrived(msg hintMsg) tea.Cmd {
	if msg.board != m.game.Board() || msg.board != m.hintFor {
		return nil // the board moved on; the hint is about another one
	}
	if msg.err != nil {
		m.setError(fmt.Sprintf("No hint: %v", msg.err))
		return nil
	}
	cmd, marked := m.markAssisted()
	if !marked || m.final != "" {
		return cmd
	}
	if !m.noticeErr {
		m.notice = "Hint: " + arrow(msg.dir) + " " + msg.dir.String()
	}
	return cmd
}

// autoMsg carries the AI's move for a board while it plays.
type autoMsg struct {
	gen   int
	board engine.Board
	dir   engine.Direction
	err   error
}

func (m *Model) toggleAuto() tea.Cmd {
	if m.auto {
		m.stopAuto()
		return nil
	}
	m.auto = true
	m.autoGen++
	m.notice, m.noticeErr = "The AI is playing; p or any move key to take over.", false
	return m.nextAuto()
}

func (m *Model) stopAuto() {
	if m.auto {
		m.auto = false
		m.autoGen++
		if !m.noticeErr {
			m.notice = ""
		}
	}
}

// nextAuto asks the AI for its next move after AutoDelay, so a person can
// follow the game.
func (m *Model) nextAuto() tea.Cmd {
	gen, b, h, ctx, delay := m.autoGen, m.game.Board(), m.opts.Hinter, m.ctx, m.opts.AutoDelay
	return func() tea.Msg {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		d, err := h.Autoplay(ctx, b)
		return autoMsg{gen: gen, board: b, dir: d, err: err}
	}
}

func (m *Model) autoArrived(msg autoMsg) tea.Cmd {
	if !m.auto || msg.gen != m.autoGen || m.screen != screenGame {
		return nil
	}
	if msg.err != nil {
		m.stopAuto()
		m.setError(fmt.Sprintf("The AI stopped: %v", msg.err))
		return nil
	}
	if msg.board != m.game.Board() {
		return m.nextAuto()
	}
	cmd, marked := m.markAssisted()
	if !marked {
		m.stopAuto()
		return cmd
	}
	if m.final != "" {
		return cmd
	}
	// The AI's next move is asked for once this one is saved (showMove).
	return tea.Batch(cmd, m.startMove(msg.dir, true, m.notice))
}

func arrow(d engine.Direction) string {
	return [...]string{engine.Up: "↑", engine.Right: "→", engine.Down: "↓", engine.Left: "←"}[d&3]
}
