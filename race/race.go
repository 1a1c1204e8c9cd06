package race

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/game/latest"
	"github.com/ssh2048/ssh2048/internal/network"
	"github.com/ssh2048/ssh2048/rating"
	"github.com/ssh2048/ssh2048/store"
)

// The rules of a race (the package comment tells the story).
const (
	MaxRacers      = 8
	DefaultTime    = 3 * time.Minute
	MinTime        = time.Minute
	MaxTime        = game.MaxRaceTime
	LobbyCountdown = 10 * time.Second // public lobby, once two are in
	RoomCountdown  = 5 * time.Second  // private room, once its host starts it
	maxRooms       = 1000             // private rooms open at once, on a node
	// roomsPerNetwork is how many of them the players of one network
	// may have opened (network.Of): a class behind one school's address
	// fills a few rooms of MaxRacers, and no one client, guests being a
	// new player each connection, can take every room.
	roomsPerNetwork = 10
)

// Errors of races; callers branch on them with errors.Is.
var (
	ErrRoomWord     = errors.New("a room word is 3 to 24 letters, digits or dashes")
	ErrRoomFull     = errors.New("the room is full")
	ErrStarted      = errors.New("the race in that room has started; try again when it ends")
	ErrTooManyRooms = errors.New("too many rooms are open; try the public lobby")
	ErrRoomsHere    = errors.New("too many rooms are open from your address; join one of them, or race in the public lobby")
	ErrNotHost      = errors.New("only the room's first player can do that")
	ErrTooFew       = errors.New("a race needs two racers")
	ErrInRace       = errors.New("you are already in this race in another session")
)

var roomWord = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,22}[a-z0-9]$`)

// Phase is where a race stands.
type Phase uint8

const (
	Waiting   Phase = iota // players join
	Countdown              // it starts at Starts; players may still join
	Running                // it ends at Ends, or once every racer still in is over
	Finished               // the places are final
)

// Racer is one racer as every racer and spectator sees them.
type Racer struct {
	Name    string
	Key     string // the player's short id (store.ShortID); "" for a guest
	Bot     bool
	Rating  float64 // before the race; 0 for an unrated racer (a guest)
	Board   engine.Board
	Score   int
	MaxTile int
	Over    bool
	Left    bool    // left the race
	Forfeit bool    // left with moves still possible: placed last
	Place   int     // once Finished: 1 is first
	After   float64 // once Finished: the new rating, 0 when not rated
	GameID  int64

	who *racer // which ticket's racer this is (Ticket.Me)
}

// View is a race as its racers and spectators see it.
type View struct {
	ID     string // the contest: "race:" and a random id
	Room   string // "" for the public lobby
	Size   int
	Length time.Duration
	Phase  Phase
	Starts time.Time // Countdown: when it starts
	Ends   time.Time // Running, Finished: when it ends
	Host   string    // private room: who may start it and set it up
	Bots   bool      // a bot races: ranks apart, rates no one
	// Lost: the node that ran the race went silent (several nodes):
	// the race is over, unranked and unrated; the games are kept.
	Lost    bool
	Racers  []Racer
	Version uint64
}

// race is one race, from its lobby to its results.
type race struct {
	hall *Hall
	view *latest.Value[View]
	seed uint64
	// network is the network of a room's opener (network.Of), whose
	// rooms it counts against while it is open.
	network netip.Prefix

	mu     sync.Mutex
	phase  Phase
	size   int
	length time.Duration
	host   *racer // private room: who may start it and set it up; set with setHost
	// hostNow is host, read without mu: every lobby frame asks whether
	// its racer hosts (Ticket.Host), and mu is held while a starting
	// race opens its racers' games in the database, when every racer's
	// screen draws its countdown at once; a frame drawn waiting for mu
	// holds its goroutine and its screen (the race-start burst of
	// issue 17).
	hostNow atomic.Pointer[racer]
	racers  []*racer
	timer   *time.Timer
	started time.Time
	final   bool // the results are stored and shown
	// timeUp: the clock ran out and the race waits for its far racers'
	// games as their nodes ended them (racenodes.go, timeRanOut).
	timeUp bool

	key string // with several nodes: the store's key this race owns (racenodes.go)
	// A lobby race's last publication for the other nodes' lists.
	listedPhase Phase
	listedAt    time.Time
}

type racer struct {
	player  game.Player
	network netip.Prefix // where the player connected from (network.Of)
	seat    *game.Seat   // nil for a racer on another node
	far     *farRacer
	bot     bool
	play    *game.Play
	left    bool      // gone from the race, or never in it (its game could not be opened)
	forfeit bool      // left with moves still possible: placed last
	reached time.Time // when the score last grew: ties go to the earlier
	rating  store.Rating
	rated   bool
	place   int     // once the race is finished
	after   float64 // the rating after it, 0 when not rated
}

// Ticket is one racer's place in a race: in a race this node runs
// (race), or in one another node runs (far, racenodes.go).
type Ticket struct {
	race *race
	far  *farRace
	view *latest.Value[View]
	me   *racer
	id   string // far: the ticket's id at the owner
	// far: the racer's game was opened (or failed to); guarded by far.mu
	opened bool
	seen   uint64
	leave  sync.Once
	hook   *farHook // far: the hook of the racer's game, once opened; guarded by far.mu
}

// Join puts the seat's player in a race: the public lobby of that size
// when room is "", else the private room of that word (opened if need be;
// its first player is the host and the size given is the room's until the
// host changes it). from is the player's IP address (the invalid Addr
// when it has none: not counted against any network's rooms). bot marks a
// player who races through the bot protocol.
func (h *Hall) Join(ctx context.Context, seat *game.Seat, from netip.Addr, room string, size int, bot bool) (*Ticket, error) {
	if err := h.svc.CheckOpen(); err != nil {
		return nil, err
	}
	if size < engine.MinSize || size > engine.MaxSize {
		return nil, fmt.Errorf("size %d: must be %d to %d", size, engine.MinSize, engine.MaxSize)
	}
	if room != "" && !roomWord.MatchString(room) {
		return nil, fmt.Errorf("room %.30q: %w", room, ErrRoomWord)
	}
	player := seat.Player()
	me := &racer{player: player, network: network.Of(from), seat: seat, bot: bot, rating: newcomer}
	if !player.Guest {
		ratings, err := h.store.Ratings(ctx, []int64{player.ID})
		if err != nil {
			return nil, err
		}
		if r, ok := ratings[player.ID]; ok {
			me.rating = r
		}
		me.rated = true
	}
	if dir := h.directory(); dir != nil {
		return h.joinAcross(ctx, dir, me, room, size)
	}
	for {
		r, err := h.raceFor(room, size, me)
		if err != nil {
			return nil, err
		}
		if ok, err := r.join(me); err != nil {
			return nil, err
		} else if ok {
			return &Ticket{race: r, view: r.view, me: me}, nil
		}
		// The race filled up or started between the lookup and the
		// join: look again.
	}
}

var newcomer = store.Rating{Rating: rating.Newcomer.Rating, Deviation: rating.Newcomer.Deviation, Volatility: rating.Newcomer.Volatility}

// raceFor finds the race a player joining room (or the lobby of size)
// enters, opening one if need be. A race's lock is never taken under the
// hall's (see Hall.mu).
func (h *Hall) raceFor(room string, size int, me *racer) (*race, error) {
	h.mu.Lock()
	current := h.lobbies[size]
	if room != "" {
		current = h.rooms[room]
	}
	h.mu.Unlock()
	if current != nil {
		switch phase := current.currentPhase(); {
		case room == "" && current.joinable():
			return current, nil
		case room != "" && phase <= Countdown:
			return current, nil
		case room != "" && phase == Running:
			return nil, fmt.Errorf("room %s: %w", room, ErrStarted)
		}
		// A full or started lobby race, or a finished race in the room:
		// a new race, in a private room hosted by this player.
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if room == "" {
		if other := h.lobbies[size]; other != current && other != nil {
			return other, nil // another joiner opened one: try it
		}
		r := h.newRace(newRaceID(), "", size, nil)
		h.lobbies[size] = r
		return r, nil
	}
	if other := h.rooms[room]; other != current && other != nil {
		return other, nil
	}
	if current == nil {
		if err := roomsLeft(maps.Values(h.rooms), me); err != nil {
			return nil, err
		}
	}
	r := h.newRace(newRaceID(), room, size, me)
	h.rooms[room] = r
	return r, nil
}

// roomsLeft says why me cannot open a room beside races (the node's):
// the node has maxRooms open, or me's network roomsPerNetwork.
func roomsLeft(races iter.Seq[*race], me *racer) error {
	rooms, ours := 0, 0
	for r := range races {
		if r.roomName() == "" {
			continue
		}
		rooms++
		if me.network.IsValid() && r.network == me.network {
			ours++
		}
	}
	switch {
	case rooms >= maxRooms:
		return ErrTooManyRooms
	case ours >= roomsPerNetwork:
		return ErrRoomsHere
	}
	return nil
}

// newRaceID is a new race's contest id.
func newRaceID() string {
	var b [8]byte
	rand.Read(b[:])
	return "race:" + hex.EncodeToString(b[:])
}

// newRace starts a race in its lobby.
func (h *Hall) newRace(id, room string, size int, host *racer) *race {
	r := &race{hall: h, seed: store.NewSeed(), size: size, length: h.times.length}
	if host != nil {
		r.network = host.network
	}
	r.setHost(host)
	r.view = latest.New(View{ID: id, Room: room, Size: size, Length: r.length})
	return r
}

func (r *race) currentPhase() Phase {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phase
}

func (r *race) joinable() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phase <= Countdown && len(r.racers) < MaxRacers
}

// join adds me; false if the race can take no one now (full, started).
func (r *race) join(me *racer) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase > Countdown {
		return false, nil
	}
	if len(r.racers) >= MaxRacers {
		if room := r.roomName(); room != "" {
			return false, fmt.Errorf("room %s: %w", room, ErrRoomFull)
		}
		return false, nil
	}
	if !me.player.Guest {
		for _, o := range r.racers {
			if o.player.ID == me.player.ID {
				return false, ErrInRace
			}
		}
	}
	if len(r.racers) == 0 && r.roomName() != "" && r.host != me {
		r.setHost(me) // the room's opener did not make it in
	}
	r.racers = append(r.racers, me)
	if r.roomName() == "" && len(r.racers) == 2 && r.phase == Waiting {
		r.countdown(r.hall.times.lobby)
	}
	r.publish()
	return true, nil
}

// setHost makes h the host; r.mu is held (or r is not yet shared).
func (r *race) setHost(h *racer) {
	r.host = h
	r.hostNow.Store(h)
}

func (r *race) roomName() string {
	v, _ := r.view.Get()
	return v.Room
}

// countdown starts the clock to the start; r.mu is held.
func (r *race) countdown(d time.Duration) {
	r.phase = Countdown
	starts := r.hall.now().Add(d)
	r.view.Update(func(v *View) { v.Starts = starts })
	r.timer = time.AfterFunc(d, r.start)
}

// start opens every racer's game on the race's seed and runs the clock.
func (r *race) start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase != Countdown {
		return
	}
	if len(r.racers) < 2 {
		r.phase = Waiting // the others left during the countdown
		r.publish()
		return
	}
	v, _ := r.view.Get()
	r.started = r.hall.now()
	ends := r.started.Add(r.length)
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	for _, rc := range r.racers {
		if rc.far != nil {
			rc.reached = r.started // its node opens its game on the race's state
			continue
		}
		p, err := rc.seat.OpenContest(ctx, r.size, rc.kind(), v.ID, r.seed, ends, r)
		if err != nil {
			r.hall.openFailed(v.ID, rc.player.ID, err)
			rc.left, rc.forfeit = true, true
			continue
		}
		rc.play, rc.reached = p, r.started
	}
	r.phase = Running
	r.view.Update(func(v *View) { v.Ends = ends })
	r.publish()
	r.timer = time.AfterFunc(r.length, r.timeRanOut)
	r.hall.raceUnlisted(r) // a running lobby race takes no one more
}

// Moved is told by a racer's Play after each move that changed its
// board (game.MoveHook).
func (r *race) Moved(p *game.Play, gained int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase != Running {
		return
	}
	var by *game.Seat
	for _, rc := range r.racers {
		if rc.play == p {
			by = rc.seat
			if gained > 0 {
				rc.reached = r.hall.now()
			}
		}
	}
	r.progressed(by)
}

// progressed publishes a racer's progress, or their leaving, and ends the
// race once every racer still in it is over; r.mu is held and the race
// runs. by is the seat of the racer whose move it is, when it is played
// on this node (see publishMove); nil publishes at once.
func (r *race) progressed(by *game.Seat) {
	allOver := true
	for _, rc := range r.racers {
		if !rc.left && !rc.over() {
			allOver = false
		}
	}
	if by != nil {
		r.publishMove(by)
	} else {
		r.publish()
	}
	if allOver || r.timeUp && r.settled() {
		r.timer.Stop()
		go r.finish()
	}
}

// timeRanOut ends the race as its clock runs out: at once when no racer
// races on another node. A far racer's node may have let a move through
// whose report has not come, so the race then says its time is up: each
// far racer's node ends its game, waiting for a move in flight, and sends
// it as final (farRace.endGames). The race ends once every far racer
// still in it has, or after clock.expiry, with what it last heard of
// those that have not (their node is silent).
func (r *race) timeRanOut() {
	r.mu.Lock()
	if r.phase != Running || r.timeUp {
		r.mu.Unlock()
		return
	}
	if r.settled() {
		r.mu.Unlock()
		r.finish()
		return
	}
	r.timeUp = true
	r.publish()
	r.timer = time.AfterFunc(r.hall.clock.expiry, r.finish)
	r.mu.Unlock()
}

// settled says whether the race knows every racer's last move: each far
// racer still in it has sent its game as final, or as over; r.mu is held.
func (r *race) settled() bool {
	return !slices.ContainsFunc(r.racers, func(rc *racer) bool {
		return rc.far != nil && !rc.left && !rc.far.final && !rc.far.Over
	})
}

// finish ranks the racers, rates them and stores the race.
func (r *race) finish() {
	r.mu.Lock()
	if r.phase != Running {
		r.mu.Unlock()
		return
	}
	r.publish()
	r.phase = Finished
	order := slices.Clone(r.racers)
	slices.SortStableFunc(order, func(a, b *racer) int {
		switch {
		case a.forfeit != b.forfeit:
			return map[bool]int{true: 1, false: -1}[a.forfeit]
		case a.score() != b.score():
			return b.score() - a.score()
		}
		return a.reached.Compare(b.reached)
	})
	places := make(map[*racer]int, len(order))
	for i, rc := range order {
		places[rc] = i + 1
	}
	v, _ := r.view.Get()
	bots := slices.ContainsFunc(r.racers, func(rc *racer) bool { return rc.bot })
	after := map[*racer]store.Rating{}
	var rated []*racer
	for _, rc := range order {
		if rc.rated && rc.gameID() != 0 {
			rated = append(rated, rc)
		}
	}
	if !bots && len(rated) >= 2 {
		before := make([]rating.Rating, len(rated))
		pl := make([]int, len(rated))
		for i, rc := range rated {
			before[i] = rating.Rating{Rating: rc.rating.Rating, Deviation: rc.rating.Deviation, Volatility: rc.rating.Volatility}
			pl[i] = places[rc]
		}
		for i, a := range rating.Race(before, pl) {
			after[rated[i]] = store.Rating{Rating: a.Rating, Deviation: a.Deviation, Volatility: a.Volatility, Races: rated[i].rating.Races + 1}
		}
	}
	result := store.RaceResult{Contest: v.ID, Size: r.size, Room: v.Room, Bots: bots, Started: r.started, Ended: r.hall.now()}
	placeOf := map[int64]int{}
	for _, rc := range order {
		if rc.player.Guest || rc.gameID() == 0 {
			continue
		}
		e := store.RaceEntry{PlayerID: rc.player.ID, GameID: rc.gameID(), Place: places[rc], Score: rc.score(), Forfeit: rc.forfeit}
		if a, ok := after[rc]; ok {
			e.After = &a
		}
		result.Entries = append(result.Entries, e)
		placeOf[rc.player.ID] = places[rc]
	}
	// The new ratings are reckoned again as the race is stored, from the
	// ratings then: a racer may have finished another race since joining
	// this one (two sessions, two rooms), whose result the ratings read
	// at the join would undo.
	var stored map[int64]store.Rating
	result.Rate = func(rated []int64, current map[int64]store.Rating) map[int64]store.Rating {
		stored = nil
		if len(rated) < 2 {
			return nil
		}
		before := make([]rating.Rating, len(rated))
		pl := make([]int, len(rated))
		for i, id := range rated {
			c, ok := current[id]
			if !ok {
				c = newcomer
			}
			before[i] = rating.Rating{Rating: c.Rating, Deviation: c.Deviation, Volatility: c.Volatility}
			pl[i] = placeOf[id]
		}
		stored = make(map[int64]store.Rating, len(rated))
		for i, a := range rating.Race(before, pl) {
			stored[rated[i]] = store.Rating{Rating: a.Rating, Deviation: a.Deviation, Volatility: a.Volatility, Races: current[rated[i]].Races + 1}
		}
		return stored
	}
	r.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := r.hall.store.RecordRace(ctx, result); err != nil {
		r.hall.log.Error("record race", "race", v.ID, "err", err)
		stored = nil
	}
	// The results show once they are stored, with the ratings stored.
	r.mu.Lock()
	r.final = true
	for _, rc := range r.racers {
		rc.place, rc.after = places[rc], 0
		if _, rated := after[rc]; rated && !rc.player.Guest {
			rc.after = stored[rc.player.ID].Rating
		}
	}
	r.publish()
	r.mu.Unlock()
	r.hall.forgetRace(r)
}

// forgetRace drops a finished race from the lobby or its room.
func (h *Hall) forgetRace(r *race) {
	v, _ := r.view.Get()
	if r.key != "" {
		h.forgetOwned(r, v.ID)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if v.Room == "" {
		if h.lobbies[v.Size] == r {
			delete(h.lobbies, v.Size)
		}
	} else if h.rooms[v.Room] == r {
		delete(h.rooms, v.Room)
	}
}

func (rc *racer) score() int {
	if rc.far != nil {
		return rc.far.Score
	}
	if rc.play == nil {
		return 0
	}
	return rc.play.Score()
}

// gameID is the racer's game's id, 0 before it is open or for a guest.
func (rc *racer) gameID() int64 {
	if rc.far != nil {
		return rc.far.GameID
	}
	if rc.play == nil {
		return 0
	}
	return rc.play.ID()
}

// over says whether the racer's board can take no more moves; a racer
// whose game could not be opened has none, and a racer on another node
// races until its node says otherwise.
func (rc *racer) over() bool {
	if rc.far != nil {
		return rc.far.Over
	}
	return rc.play == nil || rc.play.Over()
}

// publish refreshes the view's racers and phase; r.mu is held.
func (r *race) publish() {
	r.view.Update(r.current())
	r.hall.racePublished(r)
}

// publishMove is publish after a move of by's: the other racers (and
// the mover's own wait, which its screen no longer needs: it reads the
// view with its move, Ticket.Now) are woken once the mover's frame
// is written (game.Seat.Shown), or game.SpectatorLag after the move; the mover's
// key is drawn first, not queued behind its opponents' redraws.
func (r *race) publishMove(by *game.Seat) {
	r.view.UpdateBeforeFlush(r.current(), game.SpectatorLag)
	by.ToShow(r.view)
	r.hall.racePublished(r)
}

// current is the change that brings the view up to date; r.mu is held.
func (r *race) current() func(*View) {
	racers := make([]Racer, len(r.racers))
	for i, rc := range r.racers {
		p := rc.player
		x := Racer{Name: p.Name, Bot: rc.bot, Left: rc.left, Forfeit: rc.forfeit, Place: rc.place, After: rc.after, who: rc}
		if !p.Guest {
			x.Key = store.ShortID(p.Fingerprint)
			x.Rating = rc.rating.Rating
		}
		if f := rc.far; f != nil {
			x.Board, x.Score, x.MaxTile, x.Over, x.GameID = f.board, f.Score, f.MaxTile, f.Over, f.GameID
		} else if rc.play != nil {
			snap := rc.play.Snapshot()
			x.Board, x.Score, x.MaxTile, x.Over, x.GameID = snap.Board, snap.Score, rc.play.MaxTile(), snap.Over, snap.GameID
		}
		racers[i] = x
	}
	hostName := ""
	if r.host != nil {
		hostName = r.host.player.Name
	}
	phase, size, length := r.phase, r.size, r.length
	if phase == Finished && !r.final {
		phase = Running // the places are being stored
	}
	bots := slices.ContainsFunc(r.racers, func(rc *racer) bool { return rc.bot })
	return func(v *View) {
		v.Racers, v.Phase, v.Size, v.Length, v.Host, v.Bots = racers, phase, size, length, hostName, bots
	}
}

// Next returns the race's newest view: at once the first time, then once
// there is a newer one, or ctx's error.
func (t *Ticket) Next(ctx context.Context) (View, error) {
	v, version, err := t.view.Next(ctx, t.seen)
	if err != nil {
		return View{}, err
	}
	t.seen, v.Version = version, version
	return v, nil
}

// Now returns the race's newest view without waiting, whether or not
// Next has returned it: for the racer's own screen, which shows its move
// with the view the move made, rather than waiting for it.
func (t *Ticket) Now() View {
	v, version := t.view.Get()
	v.Version = version
	return v
}

// ChangedSince returns a channel closed once the race has a view newer
// than version (closed already if it has): for a screen whose runner
// waits on it with the rest of its session, then reads the view with
// Now.
func (t *Ticket) ChangedSince(version uint64) <-chan struct{} {
	return t.view.ChangedSince(version)
}

// Me returns this ticket's racer's index in v.Racers, or -1: names are
// not unique (every guest is "guest"), so a screen asks which is its own.
func (t *Ticket) Me(v View) int {
	for i, x := range v.Racers {
		if x.who == t.me {
			return i
		}
	}
	return -1
}

// Play returns the racer's game once the race runs, nil before (or if it
// could not be opened).
func (t *Ticket) Play() *game.Play {
	if t.far != nil {
		t.far.mu.Lock()
		defer t.far.mu.Unlock()
		return t.me.play
	}
	t.race.mu.Lock()
	defer t.race.mu.Unlock()
	return t.me.play
}

// ErrNoGame is Reopen's answer when the racer has no game to open again:
// the race does not run, or the racer left it.
var ErrNoGame = errors.New("no race game to open again")

// Reopen opens the racer's game again from the store, after a move the
// store refused, and returns it. A Play refuses every move after one not
// saved (its game in memory may be behind the store), so without a new
// one the racer could not move until the clock ran out. The race reads
// the new game from here on; the old one is closed.
func (t *Ticket) Reopen(ctx context.Context) (*game.Play, error) {
	if t.far != nil {
		return t.far.reopen(ctx, t)
	}
	return t.race.reopen(ctx, t.me)
}

func (r *race) reopen(ctx context.Context, rc *racer) (*game.Play, error) {
	r.mu.Lock()
	old := rc.play
	if r.phase != Running || old == nil || rc.left {
		r.mu.Unlock()
		return nil, ErrNoGame
	}
	v, _ := r.view.Get()
	size, seed, ends := r.size, r.seed, r.started.Add(r.length)
	r.mu.Unlock()
	old.Close()
	p, err := rc.seat.OpenContest(ctx, size, rc.kind(), v.ID, seed, ends, r)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if rc.play != old || r.phase != Running || rc.left {
		p.Close()
		return nil, ErrNoGame
	}
	rc.play = p
	return p, nil
}

// kind is the kind of the racer's game.
func (rc *racer) kind() store.Kind {
	if rc.bot {
		return store.KindBot
	}
	return store.KindHuman
}

// Host reports whether this racer may set up and start the room.
func (t *Ticket) Host() bool {
	if t.far != nil {
		t.far.mu.Lock()
		defer t.far.mu.Unlock()
		return t.far.host == t.id
	}
	return t.race.hostNow.Load() == t.me
}

// Configure sets a private room's size and length, before it starts.
func (t *Ticket) Configure(size int, length time.Duration) error {
	if t.far != nil {
		return t.far.ask(t, raceRequest{Op: opConfigure, Size: size, Length: length})
	}
	return t.race.configure(t.me, size, length)
}

// configure is Configure by racer me.
func (r *race) configure(me *racer, size int, length time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.host != me:
		return ErrNotHost
	case r.phase != Waiting:
		return ErrStarted
	case size < engine.MinSize || size > engine.MaxSize:
		return fmt.Errorf("size %d: must be %d to %d", size, engine.MinSize, engine.MaxSize)
	case length < min(MinTime, r.hall.times.length) || length > MaxTime:
		return fmt.Errorf("length %v: must be %v to %v", length, MinTime, MaxTime)
	}
	r.size, r.length = size, length
	r.publish()
	return nil
}

// Start starts a private room's countdown; only its host may.
func (t *Ticket) Start() error {
	if t.far != nil {
		return t.far.ask(t, raceRequest{Op: opStart})
	}
	return t.race.startBy(t.me)
}

// startBy is Start by racer me.
func (r *race) startBy(me *racer) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.host != me:
		return ErrNotHost
	case r.phase != Waiting:
		return ErrStarted
	case len(r.racers) < 2:
		return ErrTooFew
	}
	r.countdown(r.hall.times.room)
	r.publish()
	return nil
}

// Leave takes the racer out: before the start they simply go; during the
// race, with moves still possible, it is a forfeit (the game's moves are
// kept); once their board is over, their score keeps its place.
func (t *Ticket) Leave() {
	t.leave.Do(func() {
		if t.far != nil {
			t.far.leave(t)
			return
		}
		t.race.leave(t.me)
	})
}

// leave takes racer me out of the race (Ticket.Leave).
func (r *race) leave(me *racer) {
	r.mu.Lock()
	switch r.phase {
	case Waiting, Countdown:
		r.racers = slices.DeleteFunc(r.racers, func(rc *racer) bool { return rc == me })
		if r.host == me && len(r.racers) > 0 {
			r.setHost(r.racers[0])
		}
		if r.phase == Countdown && len(r.racers) < 2 && r.roomName() == "" {
			r.timer.Stop()
			r.phase = Waiting
		}
	case Running:
		if me.left {
			break // a far racer that fell silent, then said it left
		}
		// Once the clock has run out no move is possible: the race is
		// over but for its finish, which may not have run yet.
		me.left = true
		me.forfeit = !me.over() && r.hall.now().Before(r.started.Add(r.length))
		r.progressed(nil) // the last racer with moves may have gone
	}
	empty := len(r.racers) == 0
	if r.phase < Running {
		// A finished race's view is final: publishing again would
		// draw its racers without their places.
		r.publish()
	}
	r.mu.Unlock()
	if empty {
		r.hall.forgetRace(r)
	}
}
