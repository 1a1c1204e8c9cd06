package race

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/game/latest"
	"github.com/ssh2048/ssh2048/store"
)

// Races across nodes. Each race is run by one node, its owner: the node
// that opened it claims its key in the store (RaceDirectory: "lobby:SIZE"
// for the public lobby's waiting race of a size, "room:WORD" for a
// private room), so that two nodes never run the same room or two lobby
// races of one size at once. The owner runs the race exactly as on one
// node (race.go): the countdown, the seed, the finish, the places, the
// ratings and the stored result happen there, once. A racer on another
// node is a racer of the owner's race with no seat (racer.far): its node
// joins, leaves, sets up and starts through requests on the bus
// (TopicAsk, answered on TopicAnswer when they need an answer),
// and the owner publishes the whole race (raceState) on TopicState
// after every change, as the view its own racers see plus the seed once
// the race runs. The racer's node keeps a copy of that view (farRace) for
// its racers' screens; when the race runs it opens each of its racers'
// games there, an ordinary Play on the race's seed and clock, and reports
// every move's board and score to the owner (opProgress). As the race's
// clock runs out, the owner says its time is up (raceState.TimeUp); the
// racer's node ends its racers' games and sends each as final (opFinal),
// and the owner ranks once it has them all (race.timeRanOut), so that
// the result counts every move a racer was answered.
//
// Events carry state: a lost state is made up for by the next, and the
// owner publishes every race with racers elsewhere again every raceRenew;
// a racer's node says every raceRenew which of its racers are still
// there (opAlive). A racer not heard of for raceExpiry has left (a
// forfeit once the race runs unless its board was over, as a dropped
// session is on one node). A
// race not heard of for raceExpiry is lost: its owner died. Its racers
// elsewhere are told the race is over, without places; their games are
// kept as played. A dead owner's keys are free once its lease runs out,
// and the next joiner opens a new race.
const (
	TopicAsk    = "race.ask"    // JSON of a raceRequest, to the race's owner
	TopicAnswer = "race.answer" // JSON of a raceAnswer, to the asking node
	TopicState  = "race.state"  // JSON of a raceState, from the race's owner
)

const (
	raceRenew  = 5 * time.Second  // how often owners and racers' nodes say they are there
	raceExpiry = 15 * time.Second // silence after which a racer has left, or a race is lost
	askTimeout = 3 * time.Second  // a request's answer
)

// clock is raceRenew and raceExpiry, shorter in tests.
type clock struct{ renew, expiry time.Duration }

// withClock sets how often nodes renew their races and how long a
// silent racer or owner lasts (tests).
func withClock(renew, expiry time.Duration) Option {
	return func(h *Hall) { h.clock = clock{renew, expiry} }
}

// RaceDirectory is the store ability races across nodes need
// (store.RaceDirectory: package store/postgres has it). A Hall whose
// service has a bus (game.WithBus) and whose store has it runs races
// across nodes; on a store without it, or with no bus, every race runs on
// this node.
type RaceDirectory = store.RaceDirectory

// directory returns the store's directory when races cross nodes.
func (h *Hall) directory() RaceDirectory {
	if h.bus == nil {
		return nil
	}
	d, _ := h.store.(RaceDirectory)
	return d
}

type raceOp string

const (
	opJoin      raceOp = "join"
	opLeave     raceOp = "leave"
	opConfigure raceOp = "configure"
	opStart     raceOp = "start"
	opProgress  raceOp = "progress"
	opAlive     raceOp = "alive"
	// opFinal is opProgress once the race's time is up: the racer's game
	// as its node ended it, with every move it answered. Apart from
	// opProgress in the outbox, so that a report of a move that is not
	// yet sent cannot take its place.
	opFinal raceOp = "final"
)

// farRacer is, at the owner, a racer whose session is on another node:
// which one, and what it last reported of the racer's game.
type farRacer struct {
	Node, Ticket string
	GameID       int64
	Board        string
	Score        int
	MaxTile      int
	Over         bool
	Reached      time.Time // when the racer's node saw the score grow

	board engine.Board
	heard time.Time
	final bool // the report is the game as its node ended it (opFinal)
}

// raceRequest is a racer's node asking a race's owner.
type raceRequest struct {
	Race    string
	Op      raceOp
	Req     string      `json:",omitempty"` // answered on TopicAnswer when set
	Node    string      // the asking node
	To      string      // the race's owner
	Ticket  string      `json:",omitempty"`
	Tickets []string    `json:",omitempty"` // opAlive: the node's racers in the race
	Player  game.Player `json:",omitzero"`
	Bot     bool        `json:",omitempty"`
	Rating  store.Rating
	Rated   bool          `json:",omitempty"`
	Size    int           `json:",omitempty"`
	Length  time.Duration `json:",omitempty"`
	Report  *farRacer     `json:",omitempty"` // opProgress; opLeave: the game as it was left
}

// raceAnswer answers a raceRequest: Code "" is yes.
type raceAnswer struct {
	Req   string
	Code  string     `json:",omitempty"`
	Err   string     `json:",omitempty"`
	State *raceState `json:",omitempty"` // opJoin: the race as it stands
}

// raceState is a race as its owner publishes it.
type raceState struct {
	Race, Room string
	Seq        uint64 // the owner's view version: an older state is dropped
	Size       int
	Length     time.Duration
	Phase      Phase
	Starts     time.Time
	Ends       time.Time
	Host       string `json:",omitempty"`
	HostTicket string `json:",omitempty"` // the host, when they race on another node
	Bots       bool   `json:",omitempty"`
	Lost       bool   `json:",omitempty"` // the owner gave the race up (it is shutting down)
	TimeUp     bool   `json:",omitempty"` // the clock ran out: racers' nodes end their games (opFinal)
	Seed       uint64 `json:",omitempty"` // once the race runs
	Racers     []stateRacer
}

// view is the race as st shows it; the racers of tickets are marked as
// theirs (Ticket.Me). The names are sanitized again (store.SanitizeName),
// the host's as the racers', so that the host is still found among them:
// another node, of an older version say, may send them as stored, and
// they are drawn on every racer's screen.
func (st *raceState) view(tickets map[string]*Ticket) View {
	racers := make([]Racer, len(st.Racers))
	for i, sr := range st.Racers {
		x := Racer{Name: store.SanitizeName(sr.Name), Key: store.CleanText(sr.Key), Bot: sr.Bot, Rating: sr.Rating, Score: sr.Score, MaxTile: sr.MaxTile,
			Over: sr.Over, Left: sr.Left, Forfeit: sr.Forfeit, Place: sr.Place, After: sr.After, GameID: sr.GameID}
		if sr.Board != "" {
			x.Board, _ = engine.ParseBoard(sr.Board)
		}
		if t := tickets[sr.Ticket]; sr.Ticket != "" && t != nil {
			x.who = t.me
		}
		racers[i] = x
	}
	return View{ID: st.Race, Room: store.CleanText(st.Room), Size: st.Size, Length: st.Length, Phase: st.Phase, Starts: st.Starts,
		Ends: st.Ends, Host: store.SanitizeName(st.Host), Bots: st.Bots, Racers: racers}
}

// listedLobby is a public lobby's race another node runs.
type listedLobby struct {
	view  View
	seq   uint64
	heard time.Time
}

// lobbyViews is Lobbies across nodes: the public lobbies' races this
// node runs and those the others published.
func (n *nodes) lobbyViews() []View {
	n.mu.Lock()
	var own []*race
	for _, r := range n.races {
		own = append(own, r)
	}
	out := make([]View, 0, len(own)+len(n.lobbies))
	for _, l := range n.lobbies {
		out = append(out, l.view)
	}
	n.mu.Unlock()
	for _, r := range own {
		if v, version := r.view.Get(); v.Room == "" && v.Phase < Finished {
			v.Version = version
			out = append(out, v)
		}
	}
	return out
}

// owned lists the races this node runs, for Stats.
func (n *nodes) owned() []*race {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]*race, 0, len(n.races))
	for _, r := range n.races {
		out = append(out, r)
	}
	return out
}

// races says whether ticket t of this node races in st: a ticket whose
// join came too late has no game to open.
func (st *raceState) races(t *Ticket) bool {
	return slices.ContainsFunc(st.Racers, func(sr stateRacer) bool { return sr.Ticket == t.id })
}

type stateRacer struct {
	Name    string
	Key     string  `json:",omitempty"`
	Bot     bool    `json:",omitempty"`
	Rating  float64 `json:",omitempty"`
	Board   string  `json:",omitempty"`
	Score   int     `json:",omitempty"`
	MaxTile int     `json:",omitempty"`
	Over    bool    `json:",omitempty"`
	Left    bool    `json:",omitempty"`
	Forfeit bool    `json:",omitempty"`
	Place   int     `json:",omitempty"`
	After   float64 `json:",omitempty"`
	GameID  int64   `json:",omitempty"`
	Ticket  string  `json:",omitempty"` // a racer on another node
}

// The errors an owner answers with, by code.
var raceErrors = map[string]error{
	"full": ErrRoomFull, "started": ErrStarted, "host": ErrNotHost, "few": ErrTooFew,
	"in-race": ErrInRace, "shutdown": game.ErrShuttingDown,
}

var (
	// errRaceGone: the race can take no one more (started, full,
	// finished) or its owner no longer runs it; the key's next race is
	// the joiner's to open.
	errRaceGone = errors.New("the race is no longer open")
	// errNoAnswer: the owner did not answer; it may be dead.
	errNoAnswer = errors.New("the race's server does not answer")
)

// remoteError is an owner's error as its text, still matching its value.
type remoteError struct {
	msg string
	err error
}

func (e remoteError) Error() string { return e.msg }
func (e remoteError) Unwrap() error { return e.err }

func answerOf(req string, err error) raceAnswer {
	a := raceAnswer{Req: req}
	if err == nil {
		return a
	}
	a.Code, a.Err = "error", err.Error()
	if errors.Is(err, errRaceGone) {
		a.Code = "gone"
	}
	for code, e := range raceErrors {
		if errors.Is(err, e) {
			a.Code = code
		}
	}
	return a
}

func (a raceAnswer) err() error {
	switch a.Code {
	case "":
		return nil
	case "gone":
		return errRaceGone
	}
	return remoteError{msg: a.Err, err: raceErrors[a.Code]}
}

// nodes is a hall's part in races across nodes; nil on one node.
type nodes struct {
	dir      RaceDirectory
	claiming sync.Mutex // a claim and the race it opens, one at a time

	mu    sync.Mutex
	races map[string]*race           // races this node runs, by id
	far   map[string]*farRace        // races other nodes run with racers here
	asks  map[string]chan raceAnswer // requests waiting for their answer
	// lobbies: the public lobbies' races other nodes run, as last
	// published, for Lobbies (the web's list) on every node.
	lobbies map[string]listedLobby

	out raceOutbox
}

// listenRaces subscribes to the race topics; h.bus is set.
func (h *Hall) listenRaces() {
	dir := h.directory()
	if dir == nil {
		return
	}
	n := &nodes{dir: dir, races: map[string]*race{}, far: map[string]*farRace{}, asks: map[string]chan raceAnswer{},
		lobbies: map[string]listedLobby{}}
	n.out.wake = make(chan struct{}, 1)
	n.out.msgs = map[string]outMsg{}
	h.nodes = n
	requests := make(chan raceRequest, 1024)
	go func() {
		for q := range requests {
			h.handleRaceRequest(q)
		}
	}()
	h.bus.Subscribe(TopicAsk, func(payload []byte) {
		var q raceRequest
		if json.Unmarshal(payload, &q) != nil {
			return
		}
		if q.To != dir.Node() {
			return
		}
		select {
		case requests <- q:
		default:
			h.log.Warn("bus: race requests are behind; one dropped", "race", q.Race, "op", q.Op)
		}
	})
	h.bus.Subscribe(TopicAnswer, func(payload []byte) {
		var a raceAnswer
		if json.Unmarshal(payload, &a) != nil {
			return
		}
		n.mu.Lock()
		ch := n.asks[a.Req]
		n.mu.Unlock()
		if ch != nil {
			select {
			case ch <- a:
			default:
			}
		}
	})
	h.bus.Subscribe(TopicState, func(payload []byte) {
		var st raceState
		if json.Unmarshal(payload, &st) != nil {
			return
		}
		n.mu.Lock()
		f := n.far[st.Race]
		if st.Room == "" && n.races[st.Race] == nil {
			if st.Phase == Finished {
				delete(n.lobbies, st.Race)
			} else if l, ok := n.lobbies[st.Race]; !ok || st.Seq >= l.seq {
				n.lobbies[st.Race] = listedLobby{view: st.view(nil), seq: st.Seq, heard: h.now()}
			}
		}
		n.mu.Unlock()
		if f != nil {
			f.apply(st)
		}
	})
	go h.sendRaceOutbox()
	go h.keepRaces()
}

// raceKey is the directory's key of the public lobby of size or a room.
func raceKey(room string, size int) string {
	if room == "" {
		return "lobby:" + strconv.Itoa(size)
	}
	return "room:" + room
}

// joinAcross is Join with several nodes: me joins the race the
// directory names for the lobby of size or the room, opening it here if
// no live node runs one that can take racers.
func (h *Hall) joinAcross(ctx context.Context, dir RaceDirectory, me *racer, room string, size int) (*Ticket, error) {
	key := raceKey(room, size)
	replace := ""
	// Long enough for a dead owner's lease to run out, and for one more
	// claim after the last ask that went unanswered.
	for deadline := time.Now().Add(2*h.clock.expiry + askTimeout); time.Now().Before(deadline); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, owner, raceID, err := h.claimRace(ctx, dir, key, replace, room, size, me)
		switch {
		case err != nil:
			return nil, err
		case r == nil && owner == dir.Node():
			replace = raceID // this node's name, from before a restart
			continue
		case r != nil:
			ok, err := r.admit(me)
			if err != nil {
				return nil, err
			}
			if ok {
				return &Ticket{race: r, view: r.view, me: me}, nil
			}
			replace = raceID
			continue
		}
		t, err := h.joinFar(ctx, raceID, owner, room, size, me)
		switch {
		case errors.Is(err, errRaceGone):
			replace = raceID
		case errors.Is(err, errNoAnswer):
			replace = "" // a dead owner's key is free once its lease runs out
		default:
			return t, err
		}
	}
	return nil, fmt.Errorf("join race %s: %w", key, errNoAnswer)
}

// claimRace claims key for a new race of this node, or learns whose race
// it is: the race when this node runs it, else its owner and id.
func (h *Hall) claimRace(ctx context.Context, dir RaceDirectory, key, replace, room string, size int, me *racer) (*race, string, string, error) {
	n := h.nodes
	// One claim at a time on a node: another local joiner's claim must
	// not look like a stale one of this node's name.
	n.claiming.Lock()
	defer n.claiming.Unlock()
	id := newRaceID()
	cctx, cancel := context.WithTimeout(ctx, writeTimeout)
	raceID, owner, err := dir.ClaimRace(cctx, key, id, replace)
	cancel()
	if err != nil {
		return nil, "", "", err
	}
	if owner != dir.Node() {
		return nil, owner, raceID, nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if r := n.races[raceID]; r != nil {
		return r, owner, raceID, nil
	}
	if raceID != id {
		return nil, owner, raceID, nil
	}
	if room != "" {
		if err := roomsLeft(maps.Values(n.races), me); err != nil {
			go h.releaseRace(key, id)
			return nil, "", "", err
		}
	}
	r := h.newRace(id, room, size, me)
	r.key = key
	n.races[id] = r
	return r, owner, raceID, nil
}

// admit is join for a joiner who opens a new race when this one can take
// no one: false when it cannot; a running room is ErrStarted.
func (r *race) admit(me *racer) (bool, error) {
	ok, err := r.join(me)
	if ok || err != nil {
		return ok, err
	}
	if room := r.roomName(); room != "" && r.currentPhase() == Running {
		return false, fmt.Errorf("room %s: %w", room, ErrStarted)
	}
	return false, nil
}

func (h *Hall) releaseRace(key, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := h.nodes.dir.ReleaseRace(ctx, key, id); err != nil {
		h.log.Warn("release race", "race", id, "err", err)
	}
}

// forgetOwned drops a race this node ran and frees its key.
func (h *Hall) forgetOwned(r *race, id string) {
	n := h.nodes
	n.mu.Lock()
	if n.races[id] == r {
		delete(n.races, id)
	}
	n.mu.Unlock()
	go h.releaseRace(r.key, id)
}

// raceUnlisted frees a lobby race's key once the race runs: the next
// joiner opens the lobby's next race. A room keeps its key: joiners are
// told its race has started. r.mu is held.
func (h *Hall) raceUnlisted(r *race) {
	if r.key != "" && r.roomName() == "" {
		v, _ := r.view.Get()
		go h.releaseRace(r.key, v.ID)
	}
}

// handleRaceRequest does, as the owner, what a racer's node asks.
func (h *Hall) handleRaceRequest(q raceRequest) {
	n := h.nodes
	n.mu.Lock()
	r := n.races[q.Race]
	n.mu.Unlock()
	var err error
	defer func() {
		if q.Req != "" {
			h.answerRace(q, err, r)
		}
	}()
	if r == nil {
		err = errRaceGone
		return
	}
	if q.Op == opJoin {
		rc := &racer{player: q.Player, bot: q.Bot, rating: q.Rating, rated: q.Rated,
			far: &farRacer{Node: q.Node, Ticket: q.Ticket, heard: h.now()}}
		var ok bool
		if ok, err = r.admit(rc); err == nil && !ok {
			err = errRaceGone
		}
		return
	}
	if q.Op == opAlive {
		r.alive(q.Node, q.Tickets)
		return
	}
	rc := r.farRacer(q.Node, q.Ticket)
	switch q.Op {
	case opLeave:
		if rc != nil {
			if q.Report != nil {
				r.progress(rc, *q.Report, false)
			}
			r.leave(rc)
		}
	case opConfigure:
		err = r.configure(rc, q.Size, q.Length)
	case opStart:
		err = r.startBy(rc)
	case opProgress, opFinal:
		if rc != nil && q.Report != nil {
			r.progress(rc, *q.Report, q.Op == opFinal)
		}
	}
}

// answerRace answers request q; a join's answer carries the race.
func (h *Hall) answerRace(q raceRequest, err error, r *race) {
	a := answerOf(q.Req, err)
	if err == nil && q.Op == opJoin {
		r.mu.Lock()
		st := r.state()
		r.mu.Unlock()
		a.State = &st
	}
	payload, jerr := json.Marshal(a)
	if jerr != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := h.bus.Publish(ctx, TopicAnswer, payload); err != nil {
		h.log.Warn("bus: answer a race request", "race", q.Race, "err", err)
	}
}

// farRacer finds the racer of ticket on node; nil if there is none.
func (r *race) farRacer(node, ticket string) *racer {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rc := range r.racers {
		if rc.far != nil && rc.far.Node == node && rc.far.Ticket == ticket {
			return rc
		}
	}
	return nil
}

// alive notes that node's racers of tickets are still there.
func (r *race) alive(node string, tickets []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.hall.now()
	for _, rc := range r.racers {
		if rc.far != nil && rc.far.Node == node && slices.Contains(tickets, rc.far.Ticket) {
			rc.far.heard = now
		}
	}
}

// progress takes a far racer's report of its game; final: the game as
// its node ended it, after which no other report is newer.
func (r *race) progress(rc *racer, rep farRacer, final bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := rc.far
	f.heard = r.hall.now()
	if r.phase != Running || f.final && !final {
		return
	}
	f.final = f.final || final
	board, err := engine.ParseBoard(rep.Board)
	if err != nil {
		return
	}
	if rep.Score > f.Score {
		rc.reached = rep.Reached
	}
	f.GameID, f.Board, f.board, f.Score, f.MaxTile, f.Over = rep.GameID, rep.Board, board, rep.Score, rep.MaxTile, rep.Over
	r.progressed(nil) // a racer's move on another node: no frame here to wait for
}

// state is the race as published to other nodes; r.mu is held.
func (r *race) state() raceState {
	v, version := r.view.Get()
	st := raceState{Race: v.ID, Room: v.Room, Seq: version, Size: v.Size, Length: v.Length, Phase: v.Phase,
		Starts: v.Starts, Ends: v.Ends, Host: v.Host, Bots: v.Bots, Lost: v.Lost, TimeUp: r.timeUp}
	if r.host != nil && r.host.far != nil {
		st.HostTicket = r.host.far.Ticket
	}
	if v.Phase >= Running {
		st.Seed = r.seed
	}
	st.Racers = make([]stateRacer, len(v.Racers))
	for i, x := range v.Racers {
		sr := stateRacer{Name: x.Name, Key: x.Key, Bot: x.Bot, Rating: x.Rating, Score: x.Score, MaxTile: x.MaxTile,
			Over: x.Over, Left: x.Left, Forfeit: x.Forfeit, Place: x.Place, After: x.After, GameID: x.GameID}
		if x.Board.Size() > 0 {
			sr.Board = x.Board.String()
		}
		if x.who != nil && x.who.far != nil {
			sr.Ticket = x.who.far.Ticket
		}
		st.Racers[i] = sr
	}
	return st
}

// racePublished sends the race to the nodes of its far racers after
// every change of its view, and a public lobby's race to every node for
// their lists of lobbies, at most once a second unless its phase changed;
// r.mu is held.
func (h *Hall) racePublished(r *race) {
	if r.key == "" {
		return
	}
	if !slices.ContainsFunc(r.racers, func(rc *racer) bool { return rc.far != nil }) {
		now := h.now()
		if r.roomName() != "" || r.phase == r.listedPhase && now.Sub(r.listedAt) < time.Second {
			return
		}
		r.listedPhase, r.listedAt = r.phase, now
	}
	st := r.state()
	payload, err := json.Marshal(st)
	if err != nil {
		return
	}
	h.nodes.out.put("state "+st.Race, TopicState, payload)
}

// keepRaces, every raceRenew: the owner drops the far racers not heard
// of and publishes its races again; a racer's node says its racers are
// there and gives up on races whose owner fell silent.
func (h *Hall) keepRaces() {
	n := h.nodes
	t := time.NewTicker(h.clock.renew)
	defer t.Stop()
	for range t.C {
		n.mu.Lock()
		owned := make([]*race, 0, len(n.races))
		for _, r := range n.races {
			owned = append(owned, r)
		}
		far := make([]*farRace, 0, len(n.far))
		for _, f := range n.far {
			far = append(far, f)
		}
		n.mu.Unlock()
		now := h.now()
		for _, r := range owned {
			r.mu.Lock()
			var silent []*racer
			for _, rc := range r.racers {
				if rc.far != nil && !rc.left && now.Sub(rc.far.heard) > h.clock.expiry {
					silent = append(silent, rc)
				}
			}
			if r.phase < Finished {
				h.racePublished(r)
			}
			r.mu.Unlock()
			for _, rc := range silent {
				r.leave(rc)
			}
		}
		for _, f := range far {
			f.keep(now)
		}
		n.mu.Lock()
		for id, l := range n.lobbies {
			if now.Sub(l.heard) > h.clock.expiry {
				delete(n.lobbies, id)
			}
		}
		n.mu.Unlock()
	}
}

// farRace is, on a racer's node, a race another node runs.
type farRace struct {
	hall  *Hall
	id    string
	owner string // the node that runs it
	view  *latest.Value[View]

	mu      sync.Mutex
	tickets map[string]*Ticket // this node's racers in it
	host    string             // the host's ticket, when on this node
	heard   time.Time
	seq     uint64
	opening bool // this node's racers' games are being opened
	timeUp  bool // the owner said the race's time is up: the games are ended
	last    *raceState
	done    bool
}

// joinFar joins me to race raceID of another node.
func (h *Hall) joinFar(ctx context.Context, raceID, owner, room string, size int, me *racer) (*Ticket, error) {
	n := h.nodes
	t := &Ticket{me: me, id: newTicketID()}
	n.mu.Lock()
	f := n.far[raceID]
	if f == nil {
		f = &farRace{hall: h, id: raceID, owner: owner, view: latest.New(View{ID: raceID, Room: room, Size: size}),
			tickets: map[string]*Ticket{}, heard: h.now()}
		n.far[raceID] = f
	}
	n.mu.Unlock()
	f.mu.Lock()
	f.tickets[t.id] = t
	f.mu.Unlock()
	t.far, t.view = f, f.view
	a, err := h.askRace(ctx, raceRequest{Race: raceID, To: f.owner, Op: opJoin, Ticket: t.id, Player: me.player, Bot: me.bot, Rating: me.rating, Rated: me.rated})
	if err == nil {
		err = a.err()
	}
	if err != nil {
		f.drop(t)
		return nil, err
	}
	if a.State != nil {
		f.apply(*a.State)
	}
	return t, nil
}

func newTicketID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// askRace sends q to the race's owner and waits for its answer.
func (h *Hall) askRace(ctx context.Context, q raceRequest) (raceAnswer, error) {
	n := h.nodes
	q.Req, q.Node = newTicketID(), n.dir.Node()
	ch := make(chan raceAnswer, 1)
	n.mu.Lock()
	n.asks[q.Req] = ch
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		delete(n.asks, q.Req)
		n.mu.Unlock()
	}()
	payload, err := json.Marshal(q)
	if err != nil {
		return raceAnswer{}, err
	}
	pctx, cancel := context.WithTimeout(ctx, writeTimeout)
	err = h.bus.Publish(pctx, TopicAsk, payload)
	cancel()
	if err != nil {
		return raceAnswer{}, fmt.Errorf("race %s: %w", q.Op, err)
	}
	timer := time.NewTimer(askTimeout)
	defer timer.Stop()
	select {
	case a := <-ch:
		return a, nil
	case <-timer.C:
		return raceAnswer{}, errNoAnswer
	case <-ctx.Done():
		return raceAnswer{}, ctx.Err()
	}
}

// ask sends ticket t's request to the race's owner.
func (f *farRace) ask(t *Ticket, q raceRequest) error {
	q.Race, q.To, q.Ticket = f.id, f.owner, t.id
	a, err := f.hall.askRace(context.Background(), q)
	if err != nil {
		return err
	}
	return a.err()
}

// tell sends ticket t's request without waiting for an answer.
func (f *farRace) tell(t *Ticket, q raceRequest) {
	q.Race, q.To, q.Ticket, q.Node = f.id, f.owner, t.id, f.hall.nodes.dir.Node()
	payload, err := json.Marshal(q)
	if err != nil {
		return
	}
	f.hall.nodes.out.put(string(q.Op)+" "+t.id, TopicAsk, payload)
}

// leave is Ticket.Leave on a racer's node. The leave carries the
// game as it is: whether it is a forfeit depends on whether the board is
// over, and the report of the last move may have been dropped
// (handleRaceRequest's queue) or be behind.
func (f *farRace) leave(t *Ticket) {
	f.mu.Lock()
	p, hook := t.me.play, t.hook
	f.mu.Unlock()
	q := raceRequest{Op: opLeave}
	if p != nil {
		q.Report = hook.report(p)
	}
	f.tell(t, q)
	f.drop(t)
}

// drop forgets ticket t here; the race too once none is left.
func (f *farRace) drop(t *Ticket) {
	f.mu.Lock()
	delete(f.tickets, t.id)
	empty := len(f.tickets) == 0
	f.mu.Unlock()
	if empty {
		f.forget()
	}
}

func (f *farRace) forget() {
	n := f.hall.nodes
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.far[f.id] == f {
		delete(n.far, f.id)
	}
}

// apply shows the owner's state to this node's racers. Once the race
// runs, their games are opened first, so that a racer who sees the race
// running has a game (as on the owner, which opens them before it
// publishes the start).
func (f *farRace) apply(st raceState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done || st.Seq < f.seq {
		return
	}
	f.seq, f.heard, f.host = st.Seq, f.hall.now(), st.HostTicket
	if st.Lost {
		f.lose()
		return
	}
	if st.TimeUp && !f.timeUp {
		f.timeUp = true
		go f.endGames()
	}
	if st.Phase >= Running && st.Seed != 0 {
		f.last = &st
		for _, t := range f.tickets {
			if !t.opened && st.races(t) {
				if !f.opening {
					f.opening = true
					go f.open(st)
				}
				return
			}
		}
	}
	nv := st.view(f.tickets)
	f.view.Update(func(v *View) {
		v.Room, v.Size, v.Length, v.Phase, v.Starts, v.Ends = nv.Room, nv.Size, nv.Length, nv.Phase, nv.Starts, nv.Ends
		v.Host, v.Bots, v.Racers = nv.Host, nv.Bots, nv.Racers
	})
	if st.Phase == Finished {
		f.done = true
		go f.forget()
	}
}

// open opens this node's racers' games on the race's seed, reports their
// first boards to the owner, and shows the newest state.
func (f *farRace) open(st raceState) {
	f.mu.Lock()
	var todo []*Ticket
	for _, t := range f.tickets {
		if !t.opened && st.races(t) {
			todo = append(todo, t)
		}
	}
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	for _, t := range todo {
		hook := &farHook{f: f, t: t}
		p, err := t.me.seat.OpenContest(ctx, st.Size, t.me.kind(), st.Race, st.Seed, st.Ends, hook)
		f.mu.Lock()
		t.opened = true
		if err == nil {
			t.me.play, t.hook = p, hook
		}
		f.mu.Unlock()
		if err != nil {
			f.hall.openFailed(st.Race, t.me.player.ID, err)
			f.tell(t, raceRequest{Op: opLeave}) // as on the owner: the racer is out
			continue
		}
		hook.Moved(p, 0)
		f.mu.Lock()
		up := f.timeUp
		f.mu.Unlock()
		if up {
			f.endGame(t) // endGames may have run before this game was open
		}
	}
	f.mu.Lock()
	f.opening = false
	last := f.last
	f.mu.Unlock()
	if last != nil {
		f.apply(*last)
	}
}

// reopen is Ticket.Reopen on a racer's node: the game is opened again on
// the race's state, with the hook that reports its moves to the owner.
func (f *farRace) reopen(ctx context.Context, t *Ticket) (*game.Play, error) {
	f.mu.Lock()
	old, hook, last, done := t.me.play, t.hook, f.last, f.done || f.timeUp
	f.mu.Unlock()
	if old == nil || last == nil || done {
		return nil, ErrNoGame
	}
	old.Close()
	p, err := t.me.seat.OpenContest(ctx, last.Size, t.me.kind(), last.Race, last.Seed, last.Ends, hook)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.me.play != old || f.done || f.timeUp {
		p.Close()
		return nil, ErrNoGame
	}
	t.me.play = p
	return p, nil
}

// endGames ends this node's racers' games as the owner said the race's
// time is up, and sends each to the owner as final (opFinal).
func (f *farRace) endGames() {
	f.mu.Lock()
	var open []*Ticket
	for _, t := range f.tickets {
		if t.me.play != nil {
			open = append(open, t)
		}
	}
	f.mu.Unlock()
	for _, t := range open {
		f.endGame(t)
	}
}

// endGame ends ticket t's game, whose move in flight is waited for
// (game.Play.EndContest): the report that follows has every move the
// racer was answered, and no move comes after it.
func (f *farRace) endGame(t *Ticket) {
	f.mu.Lock()
	p, hook := t.me.play, t.hook
	f.mu.Unlock()
	if p == nil {
		return
	}
	p.EndContest()
	f.tell(t, raceRequest{Op: opFinal, Report: hook.report(p)})
}

// keep says this node's racers are still there, or gives up on a race
// whose owner has been silent for raceExpiry.
func (f *farRace) keep(now time.Time) {
	f.mu.Lock()
	if f.done {
		f.mu.Unlock()
		return
	}
	if now.Sub(f.heard) > f.hall.clock.expiry {
		f.lose()
		f.mu.Unlock()
		f.hall.log.Warn("race lost: its node is silent", "race", f.id)
		return
	}
	tickets := make([]string, 0, len(f.tickets))
	var any *Ticket
	for id, t := range f.tickets {
		tickets, any = append(tickets, id), t
	}
	up := f.timeUp
	f.mu.Unlock()
	if up {
		go f.endGames() // again: the bus may have lost a final report
	}
	if any != nil {
		f.tell(any, raceRequest{Op: opAlive, Tickets: tickets})
	}
}

// lose ends a race whose owner is gone or gave it up: it is over,
// unranked; the games are kept as played. f.mu is held.
func (f *farRace) lose() {
	f.done = true
	f.view.Update(func(v *View) {
		v.Phase, v.Lost = Finished, true
		// A new array: screens read the one they were given as they draw.
		v.Racers = slices.Clone(v.Racers)
		for i := range v.Racers {
			v.Racers[i].Place, v.Racers[i].After = 0, 0
		}
	})
	go f.forget()
}

// abandonRaces gives up, as the node shuts down, the races it runs with
// racers elsewhere: they are told at once that the race is lost, rather
// than when this node has been silent for raceExpiry. The races of this
// node's racers alone end with their sessions, as on one node.
func (h *Hall) abandonRaces() {
	for _, r := range h.nodes.owned() {
		r.mu.Lock()
		far := slices.ContainsFunc(r.racers, func(rc *racer) bool { return rc.far != nil })
		if !far || r.phase == Finished {
			r.mu.Unlock()
			continue
		}
		if r.timer != nil {
			r.timer.Stop()
		}
		r.phase, r.final = Finished, true
		r.view.Update(func(v *View) { v.Lost = true })
		r.publish()
		r.mu.Unlock()
		h.forgetRace(r)
	}
}

// farHook reports a far racer's moves to the race's owner: the
// game.MoveHook of a racer's game on a racer's node.
type farHook struct {
	f *farRace
	t *Ticket
	// reached is when the racer's score first stood at reachedScore
	// here: what a tie is judged by. Not the time of the report that
	// tells it: a report may be lost or left for a newer one (the
	// owner's queue, the outbox), and the score it brings is then told
	// by a later move's, which may have scored nothing.
	mu           sync.Mutex
	reached      time.Time
	reachedScore int
	// unheard: the moves are not reported (a test's lost reports).
	unheard atomic.Bool
}

// reachedAt is when the racer's score first stood at score, noted by the
// move that made it or, should the race's end report the game before
// that move's hook runs (farRace.endGame), by that report.
func (h *farHook) reachedAt(score int) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	if score > h.reachedScore {
		h.reached, h.reachedScore = h.f.hall.now(), score
	}
	return h.reached
}

// Moved tells the owner of the move (game.MoveHook).
func (h *farHook) Moved(p *game.Play, gained int) {
	if gained > 0 {
		h.reachedAt(p.Score())
	}
	if h.unheard.Load() {
		return
	}
	h.f.tell(h.t, raceRequest{Op: opProgress, Report: h.report(p)})
}

// report is a far racer's game as its owner is told of it.
func (h *farHook) report(p *game.Play) *farRacer {
	snap := p.Snapshot()
	return &farRacer{GameID: snap.GameID, Board: snap.Board.String(), Score: snap.Score, MaxTile: p.MaxTile(), Over: snap.Over,
		Reached: h.reachedAt(snap.Score)}
}

// raceOutbox holds the newest message of each kind (a race's state, a
// racer's progress) until the bus takes it: a burst sends the last.
type raceOutbox struct {
	mu    sync.Mutex
	order []string
	msgs  map[string]outMsg
	wake  chan struct{}
}

type outMsg struct {
	topic   string
	payload []byte
}

func (o *raceOutbox) put(key, topic string, payload []byte) {
	o.mu.Lock()
	if _, ok := o.msgs[key]; !ok {
		o.order = append(o.order, key)
	}
	o.msgs[key] = outMsg{topic, payload}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

func (o *raceOutbox) take() (outMsg, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.order) == 0 {
		return outMsg{}, false
	}
	key := o.order[0]
	o.order = o.order[1:]
	m := o.msgs[key]
	delete(o.msgs, key)
	return m, true
}

// sendRaceOutbox publishes the race outbox, in order.
func (h *Hall) sendRaceOutbox() {
	o := &h.nodes.out
	for range o.wake {
		for {
			m, ok := o.take()
			if !ok {
				break
			}
			ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			if err := h.bus.Publish(ctx, m.topic, m.payload); err != nil {
				h.log.Warn("bus: publish race event", "topic", m.topic, "err", err)
			}
			cancel()
		}
	}
}
