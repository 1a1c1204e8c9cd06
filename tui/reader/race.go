package reader

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/tui/event"
)

// RaceOptions configure a racer's reader screen: the same race as
// package tui/racing's screens, told in lines.
type RaceOptions struct {
	// Ticket is the player's place in the race they joined; required.
	Ticket *race.Ticket
	// Join joins the next race of the same lobby or room, after the
	// results (enter); nil offers only quit.
	Join func(ctx context.Context) (*race.Ticket, error)
	// Room is the private room's word, "" for the public lobby.
	Room    string
	Context context.Context
	// Now is the race's clock; nil means time.Now.
	Now func() time.Time
}

// Race is one racer's reader screen: the lobby's comings and goings, the
// countdown, the player's own moves (a sentence each, once committed), a
// line when an opponent's board is over or they leave, the minute and
// the ten seconds left, and the places. It waits for the race's views in
// a tea.Cmd: a reader racer is rare enough that the goroutine does not
// count, and it keeps the screen off the server's own wait for a race.
type Race struct {
	opts RaceOptions
	ctx  context.Context
	now  func() time.Time

	// mu guards ticket and stop, which Leave reads from the server's
	// goroutine once the screen is done.
	mu     sync.Mutex
	ticket *race.Ticket
	tctx   context.Context
	stop   context.CancelFunc

	view race.View
	have bool
	me   int
	play *game.Play

	moving *pending
	held   event.Held

	// What was said of the race, so that each thing is said once: the
	// racers in the lobby, the opponents whose boards are over or who
	// left, and the last second of the clock told.
	lobby   []string
	ended   map[string]bool
	clocked int
	ticking bool // a clock tick is on its way

	lines
	// failed is set when the session ends because a move could not be
	// saved nor the game opened again; read by the runner's goroutine.
	failed atomic.Bool
}

var _ tea.Model = (*Race)(nil)

// NewRace returns the race screen for one session.
func NewRace(opts RaceOptions) *Race {
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	r := &Race{opts: opts, ctx: opts.Context, now: opts.Now}
	r.setTicket(opts.Ticket)
	return r
}

func (r *Race) setTicket(t *race.Ticket) {
	ctx, stop := context.WithCancel(r.ctx)
	r.mu.Lock()
	if r.stop != nil {
		r.stop()
	}
	r.ticket, r.tctx, r.stop = t, ctx, stop
	r.mu.Unlock()
	r.view, r.have, r.me, r.play = race.View{}, false, -1, nil
	r.lobby, r.ended, r.clocked = nil, map[string]bool{}, -1
}

// Leave takes the player out of the race on screen, as racing.Model's
// Leave does; the server calls it when the session ends.
func (r *Race) Leave() {
	r.mu.Lock()
	t, stop := r.ticket, r.stop
	r.mu.Unlock()
	if stop != nil {
		stop()
	}
	if t != nil {
		t.Leave()
	}
}

// Init waits for the race's first view and starts the clock.
func (r *Race) Init() tea.Cmd { return tea.Batch(r.waitView(), r.tick()) }

// View is empty: the screen is a screen.Liner.
func (r *Race) View() tea.View { return tea.NewView("") }

// KeysPending is screen.KeyWaiter's.
func (r *Race) KeysPending() bool { return r.moving != nil }

type raceViewMsg struct {
	ticket *race.Ticket
	view   race.View
	err    error
}

type raceTickMsg struct{}

func (r *Race) waitView() tea.Cmd {
	r.mu.Lock()
	t, ctx := r.ticket, r.tctx
	r.mu.Unlock()
	return func() tea.Msg {
		v, err := t.Next(ctx)
		return raceViewMsg{ticket: t, view: v, err: err}
	}
}

func (r *Race) tick() tea.Cmd {
	r.ticking = true
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return raceTickMsg{} })
}

// Update handles one message; a move commits in a tea.Cmd, and keys, the
// race's next phase and the messages that end the session wait for it,
// as on the game screen.
func (r *Race) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if r.final != "" {
		return r, nil
	}
	if r.moving != nil && r.waitsForMove(msg) {
		r.held.Hold(msg)
		return r, nil
	}
	return r, r.update(msg)
}

func (r *Race) waitsForMove(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.KeyPressMsg, event.TakenOverMsg, event.ShutdownMsg, event.EndMsg:
		return true
	case raceViewMsg:
		return msg.err == nil && msg.view.Phase != r.view.Phase
	}
	return false
}

func (r *Race) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case event.TakenOverMsg:
		return r.end(msg.Text, "Your race game was opened in a newer session, which takes over from here.")
	case event.ShutdownMsg:
		return r.end(msg.Text, "The server is restarting. Your race game is saved as it stood.")
	case event.EndMsg:
		return r.end(msg.Text, "")
	case raceTickMsg:
		r.sayClock()
		if r.have && r.view.Phase == race.Finished {
			r.ticking = false // again starts it for the next race
			return nil
		}
		return r.tick()
	case raceViewMsg:
		r.mu.Lock()
		current := msg.ticket == r.ticket
		r.mu.Unlock()
		if !current || msg.err != nil {
			return nil
		}
		r.adopt(msg.ticket, msg.view)
		return r.waitView()
	case movedMsg:
		return r.moved(msg)
	case tea.KeyPressMsg:
		return r.key(event.NameOf(msg))
	}
	return nil
}

// racerID tells racers apart: names are not unique (every guest is
// "guest"), their keys' short ids mostly are.
func racerID(x race.Racer) string { return x.Name + "\x00" + x.Key }

// adopt tells what changed from the view on screen to v.
func (r *Race) adopt(t *race.Ticket, v race.View) {
	if r.have && v.Version <= r.view.Version {
		return
	}
	old, had := r.view, r.have
	r.view, r.have, r.me = v, true, t.Me(v)
	if v.Phase >= race.Running && r.play == nil {
		r.play = t.Play()
	}
	if !had || old.Phase != v.Phase {
		r.sayPhase()
	}
	switch v.Phase {
	case race.Waiting, race.Countdown:
		r.sayLobby()
	case race.Running:
		r.sayOpponents()
	}
}

// sayPhase tells the phase the race has just entered.
func (r *Race) sayPhase() {
	v := r.view
	switch v.Phase {
	case race.Waiting:
		where := "the public race lobby"
		if r.opts.Room != "" {
			where = "room " + r.opts.Room
		}
		r.say(fmt.Sprintf("2048 race for screen readers, in %s: %s boards, %s. The race starts once two racers are in.", where, sizeName(v.Size), minutes(v.Length)))
		if r.host() {
			r.say("You host this room: enter starts the race, 3 to 8 pick the size, plus and minus the minutes.")
		}
	case race.Countdown:
		r.clocked = -1
		r.say(fmt.Sprintf("The race starts in %s: %s boards, %s.", plural(secondsLeft(v.Starts.Sub(r.now())), "second"), sizeName(v.Size), minutes(v.Length)))
	case race.Running:
		r.clocked = -1
		r.say(fmt.Sprintf("Go! %s left. Your board:", minutes(v.Ends.Sub(r.now()))))
		if r.play != nil || r.me >= 0 {
			r.say(BoardLines(r.ownBoard())...)
		}
	case race.Finished:
		r.sayResults()
	}
}

func (r *Race) host() bool {
	r.mu.Lock()
	t := r.ticket
	r.mu.Unlock()
	return r.opts.Room != "" && t.Host()
}

// sayLobby tells who came and went since the last view.
func (r *Race) sayLobby() {
	now := make([]string, 0, len(r.view.Racers))
	for i, x := range r.view.Racers {
		id := racerID(x)
		now = append(now, id)
		if i != r.me && r.lobby != nil && !slices.Contains(r.lobby, id) {
			r.say(x.Name + " joined the race.")
		}
	}
	for _, id := range r.lobby {
		if !slices.Contains(now, id) {
			r.say(strings.SplitN(id, "\x00", 2)[0] + " left the race.")
		}
	}
	if r.lobby == nil {
		r.say(fmt.Sprintf("%s in the lobby: %s.", plural(len(now), "racer"), r.names()))
	}
	r.lobby = now
}

// names are the racers' names, the player's as "you".
func (r *Race) names() string {
	names := make([]string, len(r.view.Racers))
	for i, x := range r.view.Racers {
		names[i] = x.Name
		if i == r.me {
			names[i] = "you"
		}
	}
	return strings.Join(names, ", ")
}

// sayOpponents tells each opponent whose board is over, or who left.
func (r *Race) sayOpponents() {
	for i, x := range r.view.Racers {
		id := racerID(x)
		if i == r.me || r.ended[id] {
			continue
		}
		switch {
		case x.Left:
			r.ended[id] = true
			r.say(fmt.Sprintf("%s left the race with score %d.", x.Name, x.Score))
		case x.Over:
			r.ended[id] = true
			r.say(fmt.Sprintf("%s's board is over with score %d.", x.Name, x.Score))
		}
	}
}

// sayResults tells the places, best first.
func (r *Race) sayResults() {
	v := r.view
	if v.Lost {
		r.say("The race was lost with the server that ran it: no places, no ratings; your game is kept.")
	} else {
		r.say("The race is over. Places:")
		racers := slices.Clone(v.Racers)
		slices.SortStableFunc(racers, func(a, b race.Racer) int { return a.Place - b.Place })
		for _, x := range racers {
			name := x.Name
			if r.me >= 0 && racerID(x) == racerID(v.Racers[r.me]) {
				name += " (you)"
			}
			line := fmt.Sprintf("%d. %s, %d.", x.Place, name, x.Score)
			if x.Forfeit {
				line = fmt.Sprintf("%d. %s, %d, forfeit.", x.Place, name, x.Score)
			}
			r.say(line)
		}
		if r.me >= 0 && v.Racers[r.me].After != 0 {
			r.say(fmt.Sprintf("Your rating is now %.0f.", v.Racers[r.me].After))
		}
	}
	if r.opts.Join != nil {
		r.say("enter races again; q quits.")
	} else {
		r.say("q quits.")
	}
}

// sayClock tells the countdown's last seconds, and the race's last
// minute and ten seconds.
func (r *Race) sayClock() {
	if !r.have {
		return
	}
	switch r.view.Phase {
	case race.Countdown:
		if s := secondsLeft(r.view.Starts.Sub(r.now())); s <= 3 && s > 0 && s != r.clocked {
			r.clocked = s
			r.say(strconv.Itoa(s) + ".")
		}
	case race.Running:
		s := secondsLeft(r.view.Ends.Sub(r.now()))
		for _, mark := range []struct {
			at   int
			line string
		}{{60, "One minute left."}, {10, "Ten seconds left."}} {
			if s <= mark.at && s > mark.at-2 && r.clocked != mark.at && r.view.Length > time.Duration(mark.at)*time.Second {
				r.clocked = mark.at
				r.say(mark.line)
			}
		}
	}
}

func secondsLeft(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}

func minutes(d time.Duration) string {
	if d < time.Minute {
		return plural(secondsLeft(d), "second")
	}
	return plural(int(d.Round(time.Minute)/time.Minute), "minute")
}

// ownBoard is the player's board: the game's once the race runs, else
// the view's.
func (r *Race) ownBoard() engine.Board {
	if r.play != nil {
		return r.play.Board()
	}
	return r.view.Racers[r.me].Board
}

func (r *Race) key(k event.KeyName) tea.Cmd {
	if key.Matches(k, keys.Quit) {
		return r.quit()
	}
	if !r.have {
		return nil
	}
	switch {
	case key.Matches(k, keys.Help):
		r.say(raceHelp...)
		return nil
	case key.Matches(k, keys.Board):
		if r.view.Phase < race.Running || r.me < 0 {
			r.say("The race has not started: no board yet.")
		} else {
			r.say(BoardLines(r.ownBoard())...)
		}
		return nil
	case key.Matches(k, keys.Score):
		r.sayStanding()
		return nil
	}
	switch r.view.Phase {
	case race.Waiting, race.Countdown:
		r.lobbyKey(k)
	case race.Running:
		if d, ok := event.KeyDirection(k, keys.Up, keys.Down, keys.Left, keys.Right); ok && r.play != nil {
			return r.move(d)
		}
		r.say("That key does nothing in a race; ? lists the keys.")
	case race.Finished:
		if key.Matches(k, keys.Yes) && r.opts.Join != nil {
			return r.again()
		}
		r.say("The race is over: enter races again, q quits.")
	}
	return nil
}

var raceHelp = []string{
	"Keys in a race: arrow keys, or w a s d, or h j k l, move the tiles once it runs.",
	"b reads your board, r your score and place, question mark these keys, q quits (mid-race, a forfeit).",
	"In a room you host: enter starts, 3 to 8 pick the size, plus and minus the minutes. After the race, enter races again.",
}

// sayStanding tells the player's score and place among the racers.
func (r *Race) sayStanding() {
	if r.me < 0 || r.view.Phase < race.Running {
		r.say(fmt.Sprintf("%s in the lobby: %s.", plural(len(r.view.Racers), "racer"), r.names()))
		return
	}
	mine := r.view.Racers[r.me].Score
	if r.play != nil {
		mine = r.play.Score()
	}
	place := 1
	for i, x := range r.view.Racers {
		if i != r.me && x.Score > mine {
			place++
		}
	}
	r.say(fmt.Sprintf("Score %d, place %d of %d.", mine, place, len(r.view.Racers)))
}

// lobbyKey is the host's controls: the size, the length and the start.
func (r *Race) lobbyKey(k event.KeyName) {
	r.mu.Lock()
	t := r.ticket
	r.mu.Unlock()
	if !r.host() {
		r.say("The race has not started; q leaves the lobby.")
		return
	}
	size, length := r.view.Size, r.view.Length
	var err error
	switch {
	case key.Matches(k, keys.Size):
		size = int(k.String()[0] - '0')
		err = t.Configure(size, length)
	case key.Matches(k, keys.Bigger):
		length = min(length.Truncate(time.Minute)+time.Minute, race.MaxTime)
		err = t.Configure(size, length)
	case key.Matches(k, keys.Smaller):
		length = max(length.Truncate(time.Minute)-time.Minute, race.MinTime)
		err = t.Configure(size, length)
	case key.Matches(k, keys.Yes):
		err = t.Start()
		if err == nil {
			return // the countdown says so
		}
	default:
		r.say("That key does nothing in the lobby; ? lists the keys.")
		return
	}
	if err != nil {
		r.say(raceErrText(err))
		return
	}
	r.say(fmt.Sprintf("Set: %s boards, %s.", sizeName(size), minutes(length)))
}

func raceErrText(err error) string {
	for _, known := range []error{race.ErrTooFew, race.ErrNotHost, race.ErrStarted, race.ErrRoomFull, race.ErrTooManyRooms, race.ErrInRace, game.ErrShuttingDown} {
		if errors.Is(err, known) {
			err = known
			break
		}
	}
	s := err.Error()
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (r *Race) move(d engine.Direction) tea.Cmd {
	g, ctx := r.play, r.ctx
	p := &pending{dir: d, before: g.Board()}
	r.moving = p
	return func() tea.Msg {
		res, err := g.Move(ctx, d)
		return movedMsg{p: p, res: res, err: err}
	}
}

func (r *Race) moved(msg movedMsg) tea.Cmd {
	if msg.p != r.moving {
		return nil
	}
	r.moving = nil
	switch err := msg.err; {
	case errors.Is(err, game.ErrTakenOver):
		return r.end("", "Your race game was opened in a newer session, which takes over from here.")
	case errors.Is(err, game.ErrTimeUp), errors.Is(err, game.ErrOver):
		r.say("Time is up: the places are on their way.")
	case errors.Is(err, game.ErrMovedAccount):
		// The session is being told to end, and says why.
	case err != nil:
		if cmd := r.reopen(); cmd != nil {
			return cmd
		}
	default:
		r.say(MoveSentence(Moved{Before: msg.p.before, Dir: msg.p.dir, Result: msg.res, Score: r.play.Score()}))
		if msg.res.Moved && r.play.Over() {
			r.say(fmt.Sprintf("Your board is over with score %d; your place comes when the race ends.", r.play.Score()))
		}
	}
	rest := r.held.Release(r.update, func() bool { return r.moving != nil || r.final != "" })
	if r.final != "" {
		r.held.Drop()
	}
	return rest
}

// reopen opens the racer's game again after a move that was not saved,
// so that the race goes on from the game as last saved (the Play refuses
// every move after one not saved); if even that fails the session ends,
// as the game's does.
func (r *Race) reopen() tea.Cmd {
	r.mu.Lock()
	t := r.ticket
	r.mu.Unlock()
	p, err := t.Reopen(r.ctx)
	switch {
	case errors.Is(err, race.ErrNoGame):
		r.say("Could not save that move; the race is over.")
	case errors.Is(err, game.ErrAccountGone):
		// The session is being told to end, and says why.
	case err != nil:
		r.failed.Store(true)
		return r.end(event.NotSavedLine, "")
	default:
		r.play = p
		r.say("Could not save that move; the board is as last saved.")
	}
	return nil
}

// Failed reports whether the session ended because a move could not be
// saved (the runner exits with status 1).
func (r *Race) Failed() bool { return r.failed.Load() }

// again joins the next race of the same lobby or room.
func (r *Race) again() tea.Cmd {
	t, err := r.opts.Join(r.ctx)
	if err != nil {
		r.say("Could not join the next race: " + raceErrText(err))
		return nil
	}
	r.mu.Lock()
	old := r.ticket
	r.mu.Unlock()
	size, length := r.view.Size, r.view.Length
	if r.opts.Room != "" && t.Host() && size != 0 && length != 0 {
		_ = t.Configure(size, length) // as racing's again: the room as it was set up
	}
	old.Leave()
	r.setTicket(t)
	if !r.ticking {
		return tea.Batch(r.waitView(), r.tick())
	}
	return r.waitView()
}

func (r *Race) quit() tea.Cmd {
	if r.have && r.view.Phase == race.Running && r.me >= 0 {
		switch {
		case r.play != nil && r.play.Over() || r.view.Racers[r.me].Over:
			return r.end("", "Your board is over: your score keeps its place in the race. Thanks for racing!")
		case r.now().Before(r.view.Ends):
			return r.end("", "You left the race with moves still possible: that is a forfeit. Your game's moves are kept.")
		}
	}
	return r.end("", "Thanks for racing!")
}

func (r *Race) end(text, fallback string) tea.Cmd {
	if text == "" {
		text = fallback
	}
	r.sayLast(text)
	r.held.Drop()
	r.Leave()
	return tea.Quit
}
