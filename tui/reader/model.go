package reader

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui/event"
)

// Play is one open game that saves itself move by move, as the game
// screen's: *game.Play is one. The screen calls it one call at a time,
// Move in a tea.Cmd and never while a Move runs.
type Play interface {
	Board() engine.Board
	Size() int
	Score() int
	Moves() int
	Won() bool
	Over() bool
	// Move plays d and returns once the move is durable.
	Move(ctx context.Context, d engine.Direction) (engine.Result, error)
	// MarkAssisted records that the AI hinted in this game.
	MarkAssisted(ctx context.Context) error
	Close()
}

// Row is one row of a leaderboard.
type Row struct {
	Rank   int
	Player string
	Score  int
}

// Store is where the screen's games and leaderboard come from, for one
// player.
type Store interface {
	// Open returns the player's game of that size, a new one when fresh
	// is set; game.ErrDailyPlayed when today's challenge is played.
	Open(ctx context.Context, size int, fresh bool) (Play, error)
	// Standings returns the top limit rows of the leaderboard the screen
	// ranks on and the player's own row (nil if none); limit 0 reads the
	// player's row only. It runs in a tea.Cmd.
	Standings(ctx context.Context, size, limit int) (top []Row, me *Row, err error)
}

// Hinter is the AI behind hints; it runs in a tea.Cmd.
type Hinter interface {
	Hint(ctx context.Context, b engine.Board) (engine.Direction, error)
}

// Options configure a session's screen.
type Options struct {
	Store  Store  // required
	Hinter Hinter // nil: no hints
	Size   int    // 3–8; 0 means 4
	Guest  bool   // nothing is saved or ranked
	// Daily is the challenge's day ("YYYY-MM-DD") when the screen plays
	// today's daily challenge: one game at one size, no AI.
	Daily string
	// Context is passed to every Store and Hinter call.
	Context context.Context
}

// topRows is how many rows tab reads of the leaderboard.
const topRows = 10

// asking is the question the screen waits on an answer to.
type asking uint8

const (
	askNone asking = iota
	askNew         // start a new game?
	askAI          // a hint takes the game off the leaderboard
)

// Model is one session's reader screen. Create it with New.
type Model struct {
	opts Options
	ctx  context.Context
	size int

	game     Play
	loaded   bool
	played   bool // today's daily is played: no game, its result only
	timeUp   bool // the daily's day ended during the game
	assisted bool // this session marked the game assisted
	ask      asking

	// moving is the move whose commit is in flight; held what waits for
	// it, in arrival order.
	moving *pending
	held   event.Held

	// gone: a game could not be opened as the player's account is no
	// more (game.ErrAccountGone, a merge): the seat has told the session,
	// whose notice ends the screen with its line, and nothing says
	// meanwhile that the server failed.
	gone bool

	lines // what is said and not yet written, and the last line
	// failed: the session ends because a game could not be loaded or
	// saved. Atomic: the server reads it once the screen is done.
	failed atomic.Bool
}

var (
	_ tea.Model                       = (*Model)(nil)
	_ interface{ KeysPending() bool } = (*Model)(nil)
)

// New returns the screen for one session.
func New(opts Options) *Model {
	if opts.Size == 0 {
		opts.Size = 4
	}
	opts.Size = min(max(opts.Size, engine.MinSize), engine.MaxSize)
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	return &Model{opts: opts, ctx: opts.Context, size: opts.Size}
}

// Init does nothing: the game is opened by the first Update, so that no
// key can reach a game that is not there yet.
func (m *Model) Init() tea.Cmd { return nil }

// View is empty: the screen is a screen.Liner, whose View is never drawn.
func (m *Model) View() tea.View { return tea.NewView("") }

// KeysPending is screen.KeyWaiter's: a move's commit is in flight, and
// its sentence waits for it.
func (m *Model) KeysPending() bool { return m.moving != nil }

// Failed reports whether the session ended because a game could not be
// loaded or saved. Safe to call from any goroutine.
func (m *Model) Failed() bool { return m.failed.Load() }

// Update handles one message. As on the game screen, a move commits in
// a tea.Cmd and the messages that touch the game or end the session wait
// for it (held), so every key applies to the board the one before left
// and no sentence tells a move before it is saved.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.final != "" {
		return m, nil
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
	return m, tea.Batch(first, m.update(msg))
}

func waitsForMove(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.KeyPressMsg, hintMsg, event.TakenOverMsg, event.ShutdownMsg, event.EndMsg:
		return true
	}
	return false
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case event.TakenOverMsg:
		if msg.Text != "" {
			return m.end(msg.Text)
		}
		return m.end(takenOverText(m.size))
	case event.ShutdownMsg:
		if msg.Text != "" {
			return m.end(msg.Text)
		}
		return m.end("The server is restarting. Your game is saved; reconnect in a moment to carry on.")
	case event.EndMsg:
		return m.end(msg.Text)
	case movedMsg:
		return m.moved(msg)
	case standingsMsg:
		m.standingsArrived(msg)
	case hintMsg:
		m.hintArrived(msg)
	case tea.KeyPressMsg:
		return m.key(event.NameOf(msg))
	}
	return nil
}

// load opens the game of the screen's size, once, and greets the player.
func (m *Model) load() tea.Cmd {
	m.loaded = true
	g, err := m.opts.Store.Open(m.ctx, m.size, false)
	switch {
	case errors.Is(err, game.ErrDailyPlayed):
		m.played = true
		m.say(fmt.Sprintf("Today's %s challenge is played. r reads your result; the next challenge starts at midnight UTC. q quits.", sizeName(m.size)))
		return nil
	case errors.Is(err, game.ErrAccountGone):
		m.gone = true
		return nil
	case err != nil:
		return m.failedEnd(fmt.Sprintf("Could not load your game (%v). Please try again later.", err))
	}
	m.game = g
	title := "2048 for screen readers."
	if m.opts.Daily != "" {
		title = "2048, the daily challenge of " + m.opts.Daily + ", for screen readers."
		if m.opts.Guest {
			title = "2048, daily practice for screen readers: a practice board, not today's tiles. Play the daily with an SSH key."
		}
	}
	m.say(title)
	if m.opts.Guest && m.opts.Daily == "" {
		m.say("You play as a guest: nothing is saved. To rank, connect with an SSH key.")
	}
	m.sayGame()
	m.say("Press ? for the keys.")
	return nil
}

// sayGame tells the game on screen: its size, moves and score, then the
// board.
func (m *Model) sayGame() {
	g := m.game
	m.say(fmt.Sprintf("%s game, %s, score %d.", sizeName(g.Size()), plural(g.Moves(), "move"), g.Score()))
	m.say(BoardLines(g.Board())...)
	if g.Over() {
		m.say(m.overText())
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// end says the last line and quits; the games close.
func (m *Model) end(line string) tea.Cmd {
	m.sayLast(line)
	m.held.Drop()
	if m.game != nil {
		m.game.Close()
	}
	return tea.Quit
}

func (m *Model) failedEnd(line string) tea.Cmd {
	m.failed.Store(true)
	return m.end(line)
}

// takenOverText is the game screen's words for a game a newer session
// took over.
func takenOverText(n int) string {
	return fmt.Sprintf("Your %d×%d game was opened in a newer session, which takes over from here; nothing was lost.", n, n)
}

func (m *Model) quit() tea.Cmd {
	ended := m.game != nil && (m.game.Over() || m.timeUp)
	switch {
	case m.opts.Guest:
		return m.end("Thanks for playing! Connect with an SSH key to keep your games.")
	case m.opts.Daily != "" && (ended || m.played):
		return m.end("Today's challenge is played and saved; the next one starts at midnight UTC.")
	case ended:
		return m.end("Your game is over and saved; a new one starts when you come back.")
	}
	return m.end("Your game is saved; it will be waiting when you come back.")
}

// oneGame: the daily is one game at one size without the AI.
func (m *Model) oneGame() bool { return m.opts.Daily != "" }

const offOneGame = "The daily is one game: no new game, other sizes or AI."

// key handles one key press.
func (m *Model) key(k event.KeyName) tea.Cmd {
	if key.Matches(k, keys.Quit) {
		return m.quit()
	}
	if m.gone && m.game == nil {
		return nil // its notice is on its way
	}
	if m.ask != askNone {
		return m.answer(k)
	}
	switch {
	case key.Matches(k, keys.Help):
		m.say(helpLines(m.opts.Hinter != nil && !m.oneGame(), m.oneGame())...)
		return nil
	case key.Matches(k, keys.Score):
		return m.readStandings(0)
	case key.Matches(k, keys.Leaderboard):
		return m.readStandings(topRows)
	}
	if m.game == nil { // today's daily is played
		m.say("Today's challenge is played: r reads your result, tab the leaderboard, q quits.")
		return nil
	}
	switch {
	case key.Matches(k, keys.Board):
		m.say(BoardLines(m.game.Board())...)
		return nil
	case key.Matches(k, keys.Size, keys.Bigger, keys.Smaller):
		if m.oneGame() {
			m.say(offOneGame)
			return nil
		}
		return m.switchSize(wantedSize(k, m.size))
	case key.Matches(k, keys.New):
		switch {
		case m.oneGame():
			m.say(offOneGame)
		case m.game.Over():
			m.newGame()
		default:
			m.ask = askNew
			m.say(askNewText)
		}
		return nil
	case key.Matches(k, keys.Hint):
		return m.hint()
	case key.Matches(k, keys.Auto):
		if m.oneGame() {
			m.say(offOneGame)
		} else {
			m.say("The AI does not play on this screen; i asks it for a hint.")
		}
		return nil
	case key.Matches(k, keys.History):
		m.say("Your games are not on this screen: the history command reads them, and replays any of them.")
		return nil
	case key.Matches(k, keys.KeepGoing) && m.game.Won() && !m.game.Over():
		m.say("Keep going: your next move carries on.")
		return nil
	}
	if d, ok := event.KeyDirection(k, keys.Up, keys.Down, keys.Left, keys.Right); ok {
		if m.game.Over() || m.timeUp {
			m.say(m.overText())
			return nil
		}
		return m.move(d)
	}
	m.say(noKey)
	return nil
}

const (
	askNewText = "Start a new game? Your game so far still counts. y or enter: yes; n or escape: no."
	askAIText  = "The AI's help takes this game off the leaderboard. Ask for a hint anyway? y or enter: yes; n or escape: no."
)

// answer handles a key while the screen waits for yes or no.
func (m *Model) answer(k event.KeyName) tea.Cmd {
	asked := m.ask
	switch {
	case key.Matches(k, keys.Yes):
		m.ask = askNone
		if asked == askNew {
			m.newGame()
			return nil
		}
		return m.askHint()
	case key.Matches(k, keys.No):
		m.ask = askNone
		m.say("Carry on with this game.")
		return nil
	}
	if asked == askNew {
		m.say(askNewText)
	} else {
		m.say(askAIText)
	}
	return nil
}

func wantedSize(k event.KeyName, size int) int {
	switch {
	case key.Matches(k, keys.Bigger):
		return min(size+1, engine.MaxSize)
	case key.Matches(k, keys.Smaller):
		return max(size-1, engine.MinSize)
	}
	return int(k.String()[0] - '0')
}

// switchSize opens the game of size n in place of the one on screen.
func (m *Model) switchSize(n int) tea.Cmd {
	if n == m.size {
		m.say(fmt.Sprintf("This is the %s game; 3 to 8 pick a size, + and - one up or down.", sizeName(n)))
		return nil
	}
	g, err := m.opts.Store.Open(m.ctx, n, false)
	if errors.Is(err, game.ErrTakenOver) {
		return m.end(takenOverText(m.size))
	}
	if errors.Is(err, game.ErrAccountGone) {
		return nil // the session is being told to end, and says why
	}
	if err != nil {
		m.say(fmt.Sprintf("Could not open your %s game: %v", sizeName(n), err))
		return nil
	}
	m.game.Close()
	m.game, m.size, m.assisted = g, n, false
	m.sayGame()
	return nil
}

// newGame opens a fresh game of the size on screen.
func (m *Model) newGame() {
	g, err := m.opts.Store.Open(m.ctx, m.size, true)
	if errors.Is(err, game.ErrAccountGone) {
		return // the session is being told to end, and says why
	}
	if err != nil {
		m.say(fmt.Sprintf("Could not start a new game: %v", err))
		return
	}
	if g != m.game {
		m.game.Close()
	}
	m.game, m.assisted = g, false
	m.say("New game.")
	m.sayGame()
}

// overText is what the screen says of a game that is over.
func (m *Model) overText() string {
	score := m.game.Score()
	switch {
	case m.timeUp:
		return fmt.Sprintf("Today's challenge ended at midnight UTC; your game stands with score %d. q quits.", score)
	case m.oneGame():
		return fmt.Sprintf("Game over: no move is left. Final score %d. r reads your rank, q quits.", score)
	}
	return fmt.Sprintf("Game over: no move is left. Final score %d. n starts a new game, q quits.", score)
}

// pending is a move whose commit is in flight.
type pending struct {
	play   Play
	dir    engine.Direction
	before engine.Board
	won    bool
}

// movedMsg is a move's commit returning.
type movedMsg struct {
	p   *pending
	res engine.Result
	err error
}

// KeysDone is screen.KeysDone's: the move's sentence goes out at once.
func (movedMsg) KeysDone() {}

func (m *Model) move(d engine.Direction) tea.Cmd {
	g, ctx := m.game, m.ctx
	p := &pending{play: g, dir: d, before: g.Board(), won: g.Won()}
	m.moving = p
	return func() tea.Msg {
		res, err := g.Move(ctx, d)
		return movedMsg{p: p, res: res, err: err}
	}
}

// moved tells the move whose commit returned, then handles what was held
// meanwhile, until one of those starts another move or ends the session.
func (m *Model) moved(msg movedMsg) tea.Cmd {
	if msg.p != m.moving {
		return nil
	}
	m.moving = nil
	cmd := m.tellMove(msg)
	if m.final != "" {
		return cmd
	}
	rest := m.held.Release(m.update, func() bool { return m.moving != nil || m.final != "" })
	if m.final != "" {
		m.held.Drop()
	}
	return tea.Batch(cmd, rest)
}

func (m *Model) tellMove(msg movedMsg) tea.Cmd {
	if err := msg.err; err != nil {
		switch {
		case errors.Is(err, game.ErrTakenOver):
			return m.end(takenOverText(m.size))
		case errors.Is(err, game.ErrTimeUp):
			m.timeUp = true
			m.say(m.overText())
			return nil
		case errors.Is(err, game.ErrMovedAccount):
			return nil // the session is being told to end, and says why
		}
		return m.reopen()
	}
	p, g := msg.p, m.game
	m.say(MoveSentence(Moved{Before: p.before, Dir: p.dir, Result: msg.res, Score: g.Score()}))
	if !msg.res.Moved {
		return nil
	}
	if !p.won && g.Won() {
		m.say(fmt.Sprintf("You made %d and won! Any move keeps going; n starts a new game.", engine.Value(engine.WinExponent(g.Size()))))
	}
	if g.Over() {
		m.say(m.overText())
		return m.readStandings(0)
	}
	return nil
}

// reopen opens the stored game again after a move that was not saved;
// if even that fails the session ends rather than go on with a game that
// is not the stored one.
func (m *Model) reopen() tea.Cmd {
	m.game.Close()
	g, rerr := m.opts.Store.Open(m.ctx, m.size, false)
	if errors.Is(rerr, game.ErrAccountGone) {
		m.game, m.gone = nil, true
		return nil
	}
	if rerr != nil {
		return m.failedEnd(event.NotSavedLine)
	}
	m.game = g
	m.say("Could not save that move; the game is as last saved.")
	m.sayGame()
	return nil
}

// standingsMsg carries the leaderboard read for r (limit 0) or tab.
type standingsMsg struct {
	size, limit int
	top         []Row
	me          *Row
	err         error
}

func (m *Model) readStandings(limit int) tea.Cmd {
	if m.opts.Guest && limit == 0 {
		if m.game != nil {
			m.say(fmt.Sprintf("Score %d. Guests are not ranked.", m.game.Score()))
		}
		return nil
	}
	st, ctx, size := m.opts.Store, m.ctx, m.size
	return func() tea.Msg {
		top, me, err := st.Standings(ctx, size, limit)
		return standingsMsg{size: size, limit: limit, top: top, me: me, err: err}
	}
}

func (m *Model) board() string {
	if m.oneGame() {
		return "today's " + sizeName(m.size) + " leaderboard"
	}
	return "the " + sizeName(m.size) + " leaderboard"
}

func (m *Model) standingsArrived(msg standingsMsg) {
	if msg.size != m.size {
		return
	}
	if msg.err != nil {
		m.say(fmt.Sprintf("Could not read the leaderboard: %v", msg.err))
		return
	}
	if msg.limit == 0 {
		m.say(m.scoreText(msg.me))
		return
	}
	if len(msg.top) == 0 {
		m.say("Nobody is on " + m.board() + " yet.")
		return
	}
	m.say(fmt.Sprintf("Top %d of %s:", len(msg.top), m.board()))
	mine := false
	for _, r := range msg.top {
		m.say(fmt.Sprintf("%d. %s, %d.", r.Rank, r.Player, r.Score))
		mine = mine || (msg.me != nil && *msg.me == r)
	}
	if msg.me != nil && !mine {
		m.say(fmt.Sprintf("You: %d. %s, %d.", msg.me.Rank, msg.me.Player, msg.me.Score))
	}
}

// scoreText is r's answer: the score, best and rank.
func (m *Model) scoreText(me *Row) string {
	s := ""
	if m.game != nil {
		s = fmt.Sprintf("Score %d, %s. ", m.game.Score(), plural(m.game.Moves(), "move"))
	}
	switch {
	case me == nil:
		return s + "Not on " + m.board() + " yet."
	case m.isAssisted():
		return s + fmt.Sprintf("This game is AI-assisted and does not rank; your best is %d, rank %d on %s.", me.Score, me.Rank, m.board())
	}
	return s + fmt.Sprintf("Best %d, rank %d on %s.", me.Score, me.Rank, m.board())
}

func (m *Model) isAssisted() bool {
	if g, ok := m.game.(interface{ Kind() store.Kind }); ok && g.Kind() == store.KindAssisted {
		return true
	}
	return m.assisted
}

// hint asks the AI for a move, after asking the player once per ranked
// game: its help takes the game off the leaderboard.
func (m *Model) hint() tea.Cmd {
	switch {
	case m.oneGame():
		m.say(offOneGame)
		return nil
	case m.opts.Hinter == nil:
		m.say("The AI is off on this server.")
		return nil
	case m.game.Over():
		m.say(m.overText())
		return nil
	case !m.opts.Guest && !m.isAssisted():
		m.ask = askAI
		m.say(askAIText)
		return nil
	}
	return m.askHint()
}

// hintMsg carries the AI's suggestion for a board.
type hintMsg struct {
	board engine.Board
	dir   engine.Direction
	err   error
}

func (m *Model) askHint() tea.Cmd {
	if !m.isAssisted() {
		if err := m.game.MarkAssisted(m.ctx); err != nil {
			if errors.Is(err, game.ErrTakenOver) {
				return m.end(takenOverText(m.size))
			}
			m.say(fmt.Sprintf("Could not mark the game as AI-assisted: %v", err))
			return nil
		}
		m.assisted = true
	}
	m.say("Thinking.")
	b, h, ctx := m.game.Board(), m.opts.Hinter, m.ctx
	return func() tea.Msg {
		d, err := h.Hint(ctx, b)
		return hintMsg{board: b, dir: d, err: err}
	}
}

func (m *Model) hintArrived(msg hintMsg) {
	switch {
	case m.game == nil || msg.board != m.game.Board():
		// The board moved on: the hint is about another one.
	case msg.err != nil:
		m.say(fmt.Sprintf("No hint: %v", msg.err))
	default:
		m.say("Hint: " + dirName(msg.dir) + ".")
	}
}
