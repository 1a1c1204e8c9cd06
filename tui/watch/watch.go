// Package watch is what the screens that show games share, whichever
// way they show them (drawn, tui/viewer; told in lines, tui/reader): the
// game service as they see it (Games), and what a spectator follows
// (Follower): one game, a player from one game to their next, or TV's
// best game of a size; the watch it waits on, and when it looks again.
// It draws nothing: Update reports what happened (Event), and each
// screen shows it its own way; only the session's last line (Goodbye) is
// said alike.
package watch

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui/event"
)

// Games is what the screens that show games need of the game service:
// watching games in play, the best of them for TV, replays and a
// player's history. *game.Service is one; the server puts a cache in
// front of Live, which every TV asks each second.
type Games interface {
	Watch(ctx context.Context, id int64) (*game.Watch, error)
	WatchPlayer(ctx context.Context, who string) (*game.Watch, error)
	Playing(who string) (game.Snapshot, bool)
	Live(size int) []game.Snapshot
	Replay(ctx context.Context, id int64) (*game.Replay, error)
	History(ctx context.Context, p game.Player, recent int) (game.History, error)
}

// Mode is what a spectator follows.
type Mode uint8

const (
	OneGame Mode = iota // one game, to its end or until its player leaves
	Player              // a player, from one game to their next
	TV                  // the best game in play of a size
)

// Spectating's clocks.
const (
	// LookEvery is how often a spectator looks again for what to show:
	// TV for a better game, a spectator of a player who left or ended a
	// game for the next one. Live snapshots come as they happen; only
	// these looks are polled.
	LookEvery = time.Second
	// TVHold is how long TV stays on a game that ended, or whose player
	// left, before it moves on: long enough to see how it ended.
	TVHold = 3 * time.Second
)

// Follower is what one spectator follows, and the newest snapshot of the
// game it is on: the game service hands it the newest, never a queue, so
// a spectator that falls behind skips to the latest board and the player
// never waits for it. Make one with its fields set, then Start it; its
// screen hands it every message Owns says is its own.
type Follower struct {
	Games   Games // Watch, Playing and Live are used
	Context context.Context
	Now     func() time.Time // for TV's hold; nil: time.Now
	Mode    Mode
	Who     string // Player: how the spectator named them, name or #tag
	Size    int    // TV: the board size
	// Every and Hold are LookEvery and TVHold when zero; shorter in
	// tests.
	Every, Hold time.Duration
	// Slot, when set, is where the runner waits for the game on screen
	// (event.Waker) and sends event.WakeMsg; else a tea.Cmd waits.
	Slot *event.WakeSlot

	w       *game.Watch
	wait    tea.Cmd // waits for w's next snapshot
	snap    game.Snapshot
	have    bool      // snap is a snapshot of w
	quietAt time.Time // when the game on screen stopped being played
	looking bool      // a look is scheduled
}

// snapMsg is the next snapshot of a watched game.
type snapMsg struct {
	w    *game.Watch
	snap game.Snapshot
	err  error
}

// lookMsg is a follower's time to look again (see LookEvery).
type lookMsg struct{ f *Follower }

// Owns reports whether msg is a Follower's own: its snapshots and looks,
// and the runner's wakes.
func Owns(msg tea.Msg) bool {
	switch msg.(type) {
	case snapMsg, lookMsg, event.WakeMsg:
		return true
	}
	return false
}

// Start follows w (nil for TV, which looks for the best game itself, at
// once and then every Every).
func (f *Follower) Start(w *game.Watch) tea.Cmd {
	if f.Context == nil {
		f.Context = context.Background()
	}
	if f.Now == nil {
		f.Now = time.Now
	}
	if f.Every == 0 {
		f.Every = LookEvery
	}
	if f.Hold == 0 {
		f.Hold = TVHold
	}
	f.w = w
	if f.Mode == TV {
		f.looking = true
		return func() tea.Msg { return lookMsg{f} } // the first look, at once
	}
	return f.next()
}

// Snapshot is the newest snapshot of the game on screen; false while
// there is none yet (TV with no game in play, or its first on its way).
func (f *Follower) Snapshot() (game.Snapshot, bool) { return f.snap, f.have }

// Watching reports whether there is a game on screen, or on its way.
func (f *Follower) Watching() bool { return f.w != nil }

// Wake is event.Waker's, for the screen to pass on.
func (f *Follower) Wake() (news, moved <-chan struct{}) {
	if f.Slot == nil {
		return nil, nil
	}
	return f.Slot.Wake()
}

// next waits for the watched game's next snapshot. The wait ends with
// the session (f.Context), or with the next change of the game, which a
// watch closed meanwhile makes itself (it counts one spectator less):
// the answer, for a watch no longer on screen, is dropped. No context of
// its own: deriving one from the session's costs a goroutine per
// spectator.
func (f *Follower) next() tea.Cmd {
	if f.w == nil {
		return nil
	}
	if f.Slot != nil {
		f.Slot.Set(f.w) // the runner waits, and sends WakeMsg
		return nil
	}
	if f.wait == nil {
		w, ctx := f.w, f.Context
		f.wait = func() tea.Msg {
			snap, err := w.Next(ctx)
			return snapMsg{w: w, snap: snap, err: err}
		}
	}
	return f.wait
}

// switchTo watches w instead of the game on screen.
func (f *Follower) switchTo(w *game.Watch) tea.Cmd {
	f.Close()
	f.w, f.snap, f.have = w, game.Snapshot{}, false
	return f.next()
}

// Close stops watching.
func (f *Follower) Close() {
	if f.Slot != nil {
		f.Slot.Set(nil)
	}
	if f.w != nil {
		f.w.Close()
	}
	f.w, f.wait = nil, nil
}

// Goodbye is the last line of a spectator's session, whichever screen
// it ends on.
func (f *Follower) Goodbye() string {
	switch {
	case f.Mode == TV:
		return "Thanks for watching 2048 TV."
	case f.have:
		return "Stopped watching " + f.snap.Player + "."
	}
	return "Stopped watching."
}

// Kind is what happened, as Update reports it.
type Kind uint8

const (
	Nothing  Kind = iota
	Snap          // a newer snapshot of the game on screen (Event.Prev, Had: the one before)
	Switched      // another game is followed; its first snapshot is on its way (Event.Why)
	NoneLive      // TV looked, and no game of its size is being played
)

// Event is what one message to Update did.
type Event struct {
	Kind Kind
	// Snap: the snapshot before this one, if there was one (Had).
	Prev game.Snapshot
	Had  bool
	// Switched: why, for the spectator: who overtook whom on TV
	// (Overtook, Leader), or that the player followed started another
	// game (Started); both empty when TV moves on from a game that
	// stopped.
	Overtook, Leader string
	Started          bool
}

// Update handles one of the follower's messages (Owns) and reports what
// happened, with what to wait for next.
func (f *Follower) Update(msg tea.Msg) (Event, tea.Cmd) {
	switch msg := msg.(type) {
	case snapMsg:
		if msg.w != f.w || msg.err != nil {
			return Event{}, nil // a game no longer watched, or the session ending
		}
		ev := f.take(msg.snap)
		return ev, tea.Batch(f.next(), f.lookLater())
	case event.WakeMsg:
		if f.w == nil {
			return Event{}, nil
		}
		if snap, ok := f.w.Poll(); ok {
			return f.take(snap), f.lookLater()
		}
	case lookMsg:
		if msg.f != f {
			return Event{}, nil
		}
		f.looking = false
		return f.look()
	}
	return Event{}, nil
}

// take makes snap the game's newest.
func (f *Follower) take(snap game.Snapshot) Event {
	ev := Event{Kind: Snap, Prev: f.snap, Had: f.have}
	f.snap, f.have = snap, true
	if snap.Status != game.Live && (!ev.Had || ev.Prev.Status == game.Live) {
		f.quietAt = f.Now()
	}
	return ev
}

// lookLater schedules a look when there is something to look for: TV
// always, a spectator of a player once the game on screen is no longer
// played.
func (f *Follower) lookLater() tea.Cmd {
	if f.looking || f.Mode == OneGame || (f.Mode == Player && f.snap.Status == game.Live) {
		return nil
	}
	f.looking = true
	return tea.Tick(f.Every, func(time.Time) tea.Msg { return lookMsg{f} })
}

// look looks for what to show next: for TV the best game in play, for a
// spectator of a player the game they play now.
func (f *Follower) look() (Event, tea.Cmd) {
	var (
		ev  Event
		cmd tea.Cmd
	)
	if f.Mode == TV {
		ev, cmd = f.lookTV()
	} else if f.Mode == Player && f.have && f.snap.Status != game.Live {
		if snap, ok := f.Games.Playing(f.Who); ok && snap.GameID != f.snap.GameID && snap.Status == game.Live {
			if w, err := f.Games.Watch(f.Context, snap.GameID); err == nil {
				ev, cmd = Event{Kind: Switched, Started: true}, f.switchTo(w)
			}
		}
	}
	return ev, tea.Batch(cmd, f.lookLater())
}

// lookTV switches TV to the best game in play when the one on screen has
// been overtaken, or stopped being played Hold ago, or there is none.
func (f *Follower) lookTV() (Event, tea.Cmd) {
	best, ok := game.BestLive(f.Games.Live(f.Size))
	switch {
	case !ok:
		return Event{Kind: NoneLive}, nil
	case f.w != nil && best.GameID == f.snap.GameID:
		return Event{}, nil
	case f.w == nil:
	case !f.have:
		return Event{}, nil // the first snapshot is on its way
	case f.snap.Status == game.Live && best.Score <= f.snap.Score:
		return Event{}, nil
	case f.snap.Status != game.Live && f.Now().Sub(f.quietAt) < f.Hold:
		return Event{}, nil
	}
	w, err := f.Games.Watch(f.Context, best.GameID)
	if err != nil {
		return Event{}, nil // it ended meanwhile; the next look finds another
	}
	ev := Event{Kind: Switched}
	if f.have && f.snap.Status == game.Live {
		ev.Overtook, ev.Leader = best.Player, f.snap.Player
	}
	return ev, f.switchTo(w)
}

// Change is what changed from one snapshot of a game to the next that a
// spectator is told of, other than the move: one at a time, the first
// that applies in this order.
type Change uint8

const (
	NoChange  Change = iota
	TakenOver        // another session of the player took the game over; it goes on there
	Left             // the player left; the last board stays
	Back             // the player came back
	Ended            // the game is over
	Won              // the player made the winning tile; the game goes on
)

// ChangeOf is what changed from prev (if had) to snap.
func ChangeOf(prev game.Snapshot, had bool, snap game.Snapshot) Change {
	switch {
	case had && snap.TakenOver > prev.TakenOver:
		return TakenOver
	case snap.Status == game.Left && (!had || prev.Status != game.Left):
		return Left
	case snap.Status == game.Live && had && prev.Status == game.Left:
		return Back
	case snap.Status == game.Ended && (!had || prev.Status != game.Ended):
		return Ended
	case had && snap.Won && !prev.Won:
		return Won
	}
	return NoChange
}
