package racing

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/tui/event"
)

// Options configure a race screen.
type Options struct {
	// Ticket is the player's place in the race they joined; required.
	Ticket *race.Ticket
	// Join joins the next race of the same lobby or room, after the
	// results (enter); nil offers only quit.
	Join func(ctx context.Context) (*race.Ticket, error)
	// Room is the private room's word, "" for the public lobby: the
	// lobby tells the players how others join.
	Room string
	// JoinHint is how another player joins this room, shown in the lobby
	// ("ssh -t HOST race --room WORD"); empty shows the word alone.
	JoinHint string
	Player   string
	Guest    bool
	Context  context.Context
	Profile  colorprofile.Profile
	// Theme is the player's tile colours, theirs and their opponents'.
	Theme draw.Theme
	// Motion: the player's own move slides its tiles and pops its merges
	// for a few frames before the board at rest, as on the game screen,
	// where the runner allows it (package screen's Animator); never the
	// opponents' boards.
	Motion bool
	// Now is the clock of the countdown and the race; nil means
	// time.Now (the service's clock in tests).
	Now func() time.Time
	// Woken: the runner waits for the race's views itself and sends
	// event.WakeMsg (see event.Waker); else the screen waits in a tea.Cmd.
	Woken bool
}

// raceKeys are the race screens' keys, defined once: the help line of
// each screen is made from them.
type raceKeys struct {
	Up, Down, Left, Right key.Binding
	Size                  key.Binding // host: the room's board size
	Longer, Shorter       key.Binding // host: the race's length
	Start                 key.Binding // host: start the room's countdown
	Again                 key.Binding // after the results: the next race
	Quit                  key.Binding
}

var sharedRaceKeys = sync.OnceValue(func() *raceKeys {
	up, down, left, right := event.MoveKeys()
	return &raceKeys{
		Up: up, Down: down, Left: left, Right: right,
		Size:    key.NewBinding(key.WithKeys("3", "4", "5", "6", "7", "8"), key.WithHelp("3-8", "size")),
		Longer:  key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+/-", "minutes")),
		Shorter: key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "shorter")),
		Start:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "start")),
		Again:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "back to the lobby")),
		Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
})

// arrows is the key line's "←↑→↓ move".
func (k *raceKeys) arrows() key.Binding {
	return key.NewBinding(key.WithKeys("up"), key.WithHelp("←↑→↓", "move"))
}

// Model is one session's race screens. Create it with New.
type Model struct {
	opts    Options
	ctx     context.Context
	keys    *raceKeys
	styles  *draw.Styles
	profile colorprofile.Profile
	light   bool
	now     func() time.Time

	width, height int

	// mu guards ticket and stop, which Leave reads from the server's
	// goroutine once the screen is done, and moved.
	mu     sync.Mutex
	ticket *race.Ticket
	tctx   context.Context    // the ticket's waits for its next view
	stop   context.CancelFunc // ends them
	moved  chan struct{}      // closed when the ticket changes (Wake)
	// seen is the version of the view on screen, for the runner's
	// goroutine to wait for a newer one (Wake).
	seen atomic.Uint64
	// clockAt is when the clock on screen next shows another second
	// (Unix nanoseconds, real time; 0: no clock), for the runner to
	// wake the screen then (Wake) rather than a goroutine of its own.
	clockAt atomic.Int64
	// clockAlarm is the alarm of clockAt, made where clockAt is set
	// rather than in Wake: making one (a map entry and a timer) on the
	// runner's goroutine, which waits there for the whole race, grew its
	// stack, and the goroutine kept the larger stack for good.
	clockAlarm atomic.Pointer[clockAlarm]

	view     race.View
	me       int // the player's index in view.Racers; -1 before the first view
	haveView bool
	play     *game.Play // the player's game once the race runs
	// moving is the player's move whose commit is in flight, nil when
	// none; held is what waits for it to return (see Update).
	moving   *pendingMove
	held     event.Held
	marks    draw.Marks
	lastGain int
	motion   draw.Animation // the player's last move in flight on screen

	own, mini *draw.BoardCache
	// ownDrawn is the player's board as last drawn, with what it was
	// drawn from: most frames of a race are an opponent's move, which
	// leaves it as it was. Its lines are pieces of the last frame (which
	// the screen's renderer keeps until the next): let go when the race
	// is no longer on screen.
	ownDrawn struct {
		lines []string
		cache *draw.BoardCache
		board engine.Board
		marks draw.Marks
	}
	// opponents are the opponents' names as last drawn (by racer), kept
	// from frame to frame (see opponentColumn).
	opponents []opponentName
	// lastDrawn is what the frame AppendView last returned was drawn
	// from, if it was the running race's: the screen keeps no copy of it
	// (AppendLastView).
	lastDrawn struct {
		frame raceFrame
		ok    bool
	}
	// drawn is the race screen as last drawn, until something it shows
	// changes: the wake that follows the player's own move, whose view
	// the screen already has, draws nothing new.
	drawn string
	// inks and the race's help lines (racing, and once the board is
	// over), drawn every frame of every racer: made once per profile
	// (and width), as the game screen's header.
	inks     struct{ title, label, value, gain, dim draw.Ink }
	raceHelp [2]draw.Line
	lobby    lobbyMemo

	notice    string
	noticeErr bool
	// failed is set when the session ends because a move could not be
	// saved nor the game opened again; read by the runner's goroutine.
	failed atomic.Bool

	final string
}

var (
	_ tea.Model   = (*Model)(nil)
	_ event.Waker = (*Model)(nil)
)

// New returns the race screens for one session.
func New(opts Options) *Model {
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.Profile == colorprofile.Unknown {
		opts.Profile = colorprofile.TrueColor
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Model{opts: opts, ctx: opts.Context, keys: sharedRaceKeys(), now: opts.Now, width: 80, height: 24, me: -1,
		moved: make(chan struct{})}
	m.setProfile(opts.Profile)
	m.setTicket(opts.Ticket)
	return m
}

func (m *Model) setProfile(p colorprofile.Profile) {
	m.profile = p
	m.styles = draw.ThemedStyles(m.opts.Theme, p, !m.light)
	m.own, m.mini = nil, nil
	s := m.styles
	m.inks.title, m.inks.label, m.inks.value = draw.InkOf(s.Title), draw.InkOf(s.Label), draw.InkOf(s.Value)
	m.inks.gain, m.inks.dim = draw.InkOf(s.Gain), draw.InkOf(s.Dim)
	m.raceHelp = [2]draw.Line{}
}

// setTicket makes t the race on screen.
func (m *Model) setTicket(t *race.Ticket) {
	ctx, stop := context.WithCancel(m.ctx)
	m.mu.Lock()
	if m.stop != nil {
		m.stop()
	}
	m.ticket, m.tctx, m.stop = t, ctx, stop
	// The version shown goes back to none before the runner is told
	// (moved): told first, it could ask the new race for news past the
	// old race's version, which the new one reaches only after as many
	// changes, and the screen stayed on "Joining the race…".
	m.seen.Store(0)
	close(m.moved)
	m.moved = make(chan struct{})
	m.mu.Unlock()
	m.view, m.haveView, m.me, m.play = race.View{}, false, -1, nil
	m.marks, m.lastGain, m.own, m.mini = draw.Marks{}, 0, nil, nil
	m.motion.Stop()
	m.ownDrawn.lines, m.ownDrawn.cache = nil, nil
	m.notice, m.noticeErr = "", false
}

// Leave takes the player out of the race on screen: before the start
// they simply go; during the race it is a forfeit (their game's moves
// are kept) unless their board is over, when their score keeps its
// place. The server calls it when the session ends, however it ends.
func (m *Model) Leave() {
	m.mu.Lock()
	t, stop := m.ticket, m.stop
	m.mu.Unlock()
	if stop != nil {
		stop()
	}
	if t != nil {
		t.Leave()
	}
}

// Wake is event.Waker's Wake: news when the race on screen has a view newer
// than the one shown, moved when the screen changes races. A screen not
// run Woken has nothing to wake for: it waits in a tea.Cmd.
//
// The clock's seconds come the same way: news at once when the clock is
// due, else moved at the next second (the race on screen does not change
// while a clock runs: only after the results), so that the runner asks
// again then.
func (m *Model) Wake() (news, moved <-chan struct{}) {
	if !m.opts.Woken {
		return nil, nil
	}
	m.mu.Lock()
	t, moved := m.ticket, m.moved
	m.mu.Unlock()
	if at := m.clockAt.Load(); at != 0 {
		if time.Now().UnixNano() >= at {
			return closedNews, moved
		}
		if a := m.clockAlarm.Load(); a != nil && a.at == at {
			moved = a.c
		} else {
			moved = alarmAt(time.Unix(0, at)) // Update has not made this one
		}
	}
	return t.ChangedSince(m.seen.Load()), moved
}

// clockAlarm is an alarm at a clock's next second (Unix nanoseconds).
type clockAlarm struct {
	at int64
	c  <-chan struct{}
}

// closedNews is news that has come.
var closedNews = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// nextClock is when the clock on screen (the countdown's or the race's)
// next shows another second, in real time; zero without one.
func (m *Model) nextClock() time.Time {
	if !m.haveView {
		return time.Time{}
	}
	var end time.Time
	switch m.view.Phase {
	case race.Countdown:
		end = m.view.Starts
	case race.Running:
		end = m.view.Ends
	default:
		return time.Time{}
	}
	d := end.Sub(m.now())
	if d <= 0 {
		return time.Time{}
	}
	// The clock shows d rounded up to whole seconds: it changes as d
	// goes below the whole second under it.
	frac := d % time.Second
	if frac == 0 {
		frac = time.Second
	}
	return time.Now().Add(frac)
}

// raceViewMsg is a new view of the race on screen.
type raceViewMsg struct {
	ticket *race.Ticket
	view   race.View
	err    error
}

// raceTickMsg redraws the clock.
type raceTickMsg struct{}

// Init asks for the terminal's background, then waits for the race's
// first view and starts the clock (run Woken, the runner does both).
func (m *Model) Init() tea.Cmd {
	if m.opts.Woken {
		return tea.RequestBackgroundColor
	}
	return tea.Batch(tea.RequestBackgroundColor, m.waitView(), m.tick())
}

// waitView waits, in a tea.Cmd, for the next view of the race on
// screen; run Woken, the runner waits, and there is nothing to do.
func (m *Model) waitView() tea.Cmd {
	if m.opts.Woken {
		return nil
	}
	m.mu.Lock()
	t, ctx := m.ticket, m.tctx
	m.mu.Unlock()
	return func() tea.Msg {
		v, err := t.Next(ctx)
		return raceViewMsg{ticket: t, view: v, err: err}
	}
}

// tick redraws once a second, for the countdown and the race's clock.
func (m *Model) tick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return raceTickMsg{} })
}

// Update handles one message.
//
// A move is committed in a tea.Cmd, as on the game screen (see
// tui.Model.Update): a screen runs Update under its lock, and the
// opponents' moves, the clock and resizes must not wait behind the
// player's commit. Until it returns (movedMsg) frames show the player's
// board as it was before the move, the Play is not read (its reads wait
// for the commit), and what reads or changes the player's game or ends
// the session (keys, the race's end, the runner's last word) is held and
// handled in arrival order once it returns, as if Update had waited.
// The race's bookkeeping is the Play's MoveHook, told by Move itself,
// in the command, once the move is durable.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	if m.moving != nil && m.final == "" && m.waitsForMove(msg) {
		m.held.Hold(msg)
	} else {
		cmd = m.update(msg)
	}
	if m.opts.Woken {
		if at := m.nextClock(); at.IsZero() {
			m.clockAt.Store(0)
		} else {
			if a := m.clockAlarm.Load(); a == nil || a.at != at.UnixNano() {
				m.clockAlarm.Store(&clockAlarm{at: at.UnixNano(), c: alarmAt(at)})
			}
			m.clockAt.Store(at.UnixNano())
		}
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	if m.final != "" {
		return nil
	}
	switch msg.(type) {
	case raceViewMsg: // a view that is not new leaves the screen as it is
	case event.WakeMsg:
		if at := m.clockAt.Load(); at != 0 && time.Now().UnixNano() >= at {
			m.drawn = "" // the clock's next second
		}
	default:
		m.drawn = ""
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.own, m.mini, m.raceHelp = nil, nil, [2]draw.Line{}
	case tea.ColorProfileMsg:
		m.setProfile(msg.Profile)
	case tea.BackgroundColorMsg:
		m.light = !msg.IsDark()
		m.setProfile(m.profile)
	case event.TakenOverMsg:
		return m.end(msg.Text, "Your race game was opened in a newer session, which takes over from here.")
	case event.ShutdownMsg:
		return m.end(msg.Text, "The server is restarting. Your race game is saved as it stood.")
	case event.EndMsg:
		return m.end(msg.Text, "")
	case raceTickMsg:
		return m.tick()
	case raceViewMsg:
		return m.viewArrived(msg)
	case event.WakeMsg:
		m.mu.Lock()
		t := m.ticket
		m.mu.Unlock()
		m.adopt(t, t.Now())
	case tea.KeyPressMsg:
		return m.key(msg)
	case movedMsg:
		return m.commitReturned(msg)
	}
	return nil
}

// waitsForMove reports whether msg must wait for the move in flight: a
// key, a message that ends the session (leaving the race reads the
// player's board), or a view of the race in another phase (the results:
// a key typed during the race must not act on them). The opponents'
// moves, the clock and the window are handled at once.
func (m *Model) waitsForMove(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.KeyPressMsg, event.TakenOverMsg, event.ShutdownMsg, event.EndMsg:
		return true
	case raceViewMsg:
		return msg.err == nil && msg.view.Phase != m.view.Phase
	case event.WakeMsg:
		m.mu.Lock()
		t := m.ticket
		m.mu.Unlock()
		v := t.Now()
		if v.Phase == m.view.Phase {
			return false
		}
		// Held, it is news no longer: the runner waits for a newer view,
		// rather than waking the screen again for this one.
		m.seen.Store(v.Version)
		return true
	}
	return false
}

// Animate is package screen's Animator: it picks the frame of the
// player's move in motion for now, or ends it (motion not allowed now,
// its frames are over, or the race no longer runs).
func (m *Model) Animate(now time.Time, allowed bool) time.Duration {
	if !m.motion.Active() {
		return 0
	}
	m.drawn = "" // the player's board moves
	// Not while a commit is out: the frame shows the board before it.
	if !allowed || m.moving != nil || m.final != "" || !m.haveView || m.view.Phase != race.Running || m.play == nil {
		m.motion.Stop()
		return 0
	}
	return m.motion.Advance(now)
}

// KeysPending is screen.KeyWaiter's: a move's commit is in flight, and
// with it the frame of its key and of the keys held behind it.
func (m *Model) KeysPending() bool { return m.moving != nil }

func (m *Model) viewArrived(msg raceViewMsg) tea.Cmd {
	m.mu.Lock()
	current := msg.ticket == m.ticket
	m.mu.Unlock()
	if !current {
		return nil // a race the player has left
	}
	if msg.err != nil {
		return nil // the session or the wait ended
	}
	m.adopt(msg.ticket, msg.view)
	return m.waitView()
}

// adopt shows v, a view of t's race, unless the screen has it or a newer
// one already (the player's own move brought it: see move).
func (m *Model) adopt(t *race.Ticket, v race.View) {
	if m.haveView && v.Version <= m.view.Version {
		return
	}
	m.view, m.haveView = v, true
	m.seen.Store(v.Version)
	m.me = t.Me(v)
	if v.Phase != race.Running {
		m.ownDrawn.lines, m.ownDrawn.cache = nil, nil
	} else {
		m.lobby = lobbyMemo{} // not shown again in this race
	}
	if m.view.Phase >= race.Running && m.play == nil {
		m.play = t.Play()
	}
	if m.view.Size != 0 && (m.own == nil || m.own.N != m.view.Size) {
		m.own, m.mini = nil, nil
	}
	m.drawn = ""
}

func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	m.motion.Stop() // input is never behind an animation
	if key.Matches(k, m.keys.Quit) {
		return m.quit()
	}
	if !m.haveView {
		return nil
	}
	switch m.view.Phase {
	case race.Waiting, race.Countdown:
		return m.lobbyKey(k)
	case race.Running:
		if d, ok := m.direction(k); ok {
			return m.move(d)
		}
	case race.Finished:
		if key.Matches(k, m.keys.Again) && m.opts.Join != nil {
			return m.again()
		}
	}
	return nil
}

// lobbyKey is the host's controls: the size, the length and the start.
func (m *Model) lobbyKey(k tea.KeyPressMsg) tea.Cmd {
	m.mu.Lock()
	t := m.ticket
	m.mu.Unlock()
	if m.opts.Room == "" || !t.Host() {
		return nil
	}
	size, length := m.view.Size, m.view.Length
	var err error
	switch {
	case key.Matches(k, m.keys.Size):
		size = int(k.String()[0] - '0')
		err = t.Configure(size, length)
	case key.Matches(k, m.keys.Longer):
		err = t.Configure(size, min(length.Truncate(time.Minute)+time.Minute, race.MaxTime))
	case key.Matches(k, m.keys.Shorter):
		err = t.Configure(size, max(length.Truncate(time.Minute)-time.Minute, race.MinTime))
	case key.Matches(k, m.keys.Start):
		err = t.Start()
	default:
		return nil
	}
	m.notice, m.noticeErr = "", false
	if err != nil {
		m.notice, m.noticeErr = draw.Capitalise(errText(err))+".", true
	}
	return nil
}

// errText is an error as a player reads it: the service's own words.
func errText(err error) string {
	for _, known := range []error{race.ErrTooFew, race.ErrNotHost, race.ErrStarted, race.ErrRoomFull, race.ErrTooManyRooms, race.ErrInRace, game.ErrShuttingDown} {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	return err.Error()
}

func (m *Model) direction(k tea.KeyPressMsg) (engine.Direction, bool) {
	return event.KeyDirection(event.NameOf(k), m.keys.Up, m.keys.Down, m.keys.Left, m.keys.Right)
}

// pendingMove is the player's move whose commit is in flight.
type pendingMove struct {
	play *game.Play
	dir  engine.Direction
	// The player's board as it was, shown until the commit returns.
	board engine.Board
	score int
	over  bool
}

// movedMsg is a move's commit returning.
type movedMsg struct {
	p   *pendingMove
	res engine.Result
	err error
}

// KeysDone is screen.KeysDone's: the frame that shows a move goes out at
// once.
func (movedMsg) KeysDone() {}

// move plays d in a tea.Cmd; the frame shows it once it is saved (see
// Update).
func (m *Model) move(d engine.Direction) tea.Cmd {
	if m.play == nil {
		return nil
	}
	p := &pendingMove{play: m.play, dir: d, board: m.play.Board(), score: m.play.Score(), over: m.play.Over()}
	m.moving = p
	ctx := m.ctx
	return func() tea.Msg {
		res, err := p.play.Move(ctx, p.dir)
		return movedMsg{p: p, res: res, err: err}
	}
}

// commitReturned shows the move whose commit returned, then handles
// what was held meanwhile.
func (m *Model) commitReturned(msg movedMsg) tea.Cmd {
	if msg.p != m.moving {
		return nil
	}
	m.moving = nil
	cmd := m.showMove(msg.p, msg.res, msg.err)
	return tea.Batch(cmd, m.release())
}

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

// showMove shows the result of a move, saved or not.
func (m *Model) showMove(p *pendingMove, res engine.Result, err error) tea.Cmd {
	switch {
	case errors.Is(err, game.ErrTakenOver):
		return m.end("", "Your race game was opened in a newer session, which takes over from here.")
	case errors.Is(err, game.ErrTimeUp), errors.Is(err, game.ErrOver):
		return nil // the results are on their way
	case errors.Is(err, game.ErrMovedAccount):
		return nil // the session is being told to end, and says why
	case err != nil:
		return m.reopen()
	case !res.Moved:
		return nil
	}
	m.marks = draw.Marks{On: true, Spawn: res.Spawn, Merged: p.board.Merges(p.dir)}
	if m.opts.Motion {
		m.motion.Start(p.board, p.dir, res.Gained > 0)
	}
	m.lastGain = res.Gained
	m.notice, m.noticeErr = "", false
	// The move has updated the race's view (places, this board among
	// the opponents'): its frame shows it now, and the view's wake,
	// which comes after this frame is written, finds nothing new.
	m.mu.Lock()
	t := m.ticket
	m.mu.Unlock()
	m.adopt(t, t.Now())
	return nil
}

// reopen opens the racer's game again after a move that was not saved,
// so that the race goes on from the game as last saved (the Play refuses
// every move after one not saved); if even that fails the session ends,
// as a game screen's does, rather than leave the racer keys that do
// nothing.
func (m *Model) reopen() tea.Cmd {
	m.mu.Lock()
	t := m.ticket
	m.mu.Unlock()
	p, err := t.Reopen(m.ctx)
	if errors.Is(err, game.ErrAccountGone) {
		return nil // the session is being told to end, and says why
	}
	if errors.Is(err, race.ErrNoGame) {
		// The race is over: its results are on their way.
		m.notice, m.noticeErr = "Could not save that move.", true
		return nil
	}
	if err != nil {
		m.failed.Store(true)
		return m.end("", event.NotSavedLine)
	}
	m.play, m.marks, m.lastGain = p, draw.Marks{}, 0
	m.notice, m.noticeErr = "Could not save that move; the board is as last saved.", true
	return nil
}

// Failed reports whether the session ended because a move could not be
// saved (the runner exits with status 1).
func (m *Model) Failed() bool { return m.failed.Load() }

// again joins the next race of the same lobby or room.
func (m *Model) again() tea.Cmd {
	t, err := m.opts.Join(m.ctx)
	if err != nil {
		m.notice, m.noticeErr = "Could not join the next race: "+errText(err)+".", true
		return nil
	}
	m.mu.Lock()
	old := m.ticket
	m.mu.Unlock()
	// A room's host who comes back first keeps the room as it was set up
	// for the race just run, rather than the size they connected with
	// and the default length.
	size, length := m.view.Size, m.view.Length
	if m.opts.Room != "" && t.Host() && size != 0 && length != 0 {
		if err := t.Configure(size, length); err != nil {
			m.notice, m.noticeErr = "Could not keep the room's size and length: "+errText(err)+".", true
		}
	}
	old.Leave()
	m.setTicket(t)
	return m.waitView()
}

func (m *Model) quit() tea.Cmd {
	if m.haveView && m.view.Phase == race.Running && m.me >= 0 {
		// As race.Ticket.Leave judges it: the board as played (the
		// view may be behind the last move), and the clock.
		switch {
		case m.play != nil && m.play.Over() || m.view.Racers[m.me].Over:
			return m.end("", "Your board is over: your score keeps its place in the race. Thanks for racing!")
		case m.now().Before(m.view.Ends):
			return m.end("", "You left the race with moves still possible: that is a forfeit. Your game's moves are kept.")
		}
	}
	return m.end("", "Thanks for racing!")
}

// end leaves the race and shows the last line: text, or else fallback.
func (m *Model) end(text, fallback string) tea.Cmd {
	if text == "" {
		text = fallback
	}
	m.final = text
	m.Leave()
	return tea.Quit
}
