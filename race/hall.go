// Package race runs races: two to eight players on the same tiles for a
// few minutes. The public lobby of each size starts a race as soon as two
// players are in and a countdown ends (more may join until it does); a
// private room, named by a word its players share, starts when its first
// player (the host) says so. Highest score wins; a tie goes to whoever
// reached the score first. The race ends when the time is up, or as soon
// as every racer still in it has a board that is over or has left. A
// racer whose board is over has played their race: their score keeps its
// place whether they stay or leave. Leaving with moves still possible
// forfeits the race (placed last; the game's moves are kept). A finished
// race with no bot rates its key-holding racers (package rating).
//
// A Hall holds the races of one game service: its lobbies and rooms
// (race.go) and, when several nodes share a store, its part in the
// protocol that lets racers on different nodes race one another
// (racenodes.go). Races are built on package game and reach into it only
// through its seam for contests (game.Seat.OpenContest, game.MoveHook):
// the service owns every game, its one writer and its moves; a race owns
// who races, the clock, the places, the ratings and the stored result.
// Nothing in game knows of races, so a new kind of contest is another
// package beside this one, not another branch through game.
package race

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
)

// writeTimeout bounds one write to the store or the bus, as the game
// service's writes are bounded.
const writeTimeout = 5 * time.Second

// Store is what races need of the service's store (store.Store has it):
// the racers' ratings before a race, and the result after. A store with
// RaceDirectory too runs races across nodes.
type Store interface {
	Ratings(ctx context.Context, playerIDs []int64) (map[int64]store.Rating, error)
	RecordRace(ctx context.Context, r store.RaceResult) error
}

// Hall is the races of one game service: the public lobbies, the private
// rooms and, with several nodes, the races run elsewhere that racers here
// are in. Its methods are safe for concurrent use. Build one per service
// (New), at start-up: with several nodes it subscribes to the bus.
type Hall struct {
	svc   *game.Service
	store Store
	log   *slog.Logger
	bus   game.Bus // nil on a single node
	times times
	clock clock
	nodes *nodes // races across nodes (racenodes.go); nil on one node

	// A race's lock is never taken under mu (a starting race opens its
	// racers' games, which takes the service's locks).
	mu      sync.Mutex
	lobbies map[int]*race    // the public lobby's race of each size
	rooms   map[string]*race // private rooms, by word
}

// Option changes how New builds the hall.
type Option func(*Hall)

// times are the countdowns and the default length of races.
type times struct{ lobby, room, length time.Duration }

// WithTimes sets the public lobby's and private rooms' countdowns and the
// default length of a race (tests race in seconds).
func WithTimes(lobby, room, length time.Duration) Option {
	return func(h *Hall) { h.times = times{lobby, room, length} }
}

// New returns the races of svc, on its store, clock and bus: across nodes
// when svc has a bus and its store is a RaceDirectory.
func New(svc *game.Service, opts ...Option) *Hall {
	h := &Hall{svc: svc, store: svc.Store(), log: svc.Logger(), bus: svc.Bus(),
		times: times{LobbyCountdown, RoomCountdown, DefaultTime}, clock: clock{raceRenew, raceExpiry},
		lobbies: make(map[int]*race), rooms: make(map[string]*race)}
	for _, o := range opts {
		o(h)
	}
	if h.bus != nil {
		h.listenRaces()
	}
	return h
}

// Close gives up, as the node shuts down, the races it runs with racers
// on other nodes (see abandonRaces); call it with the service's Close.
// Races of this node's racers alone end with their sessions.
func (h *Hall) Close() {
	if h.nodes != nil {
		h.abandonRaces()
	}
}

// now is the service's clock.
func (h *Hall) now() time.Time { return h.svc.Now() }

// openFailed logs a racer's game that could not be opened as the race
// starts: the racer is out. An account a link merged away is the
// player's doing, and their session is told (game.ErrAccountGone), so
// it is no error of the server's.
func (h *Hall) openFailed(race string, player int64, err error) {
	level := slog.LevelError
	if errors.Is(err, game.ErrAccountGone) {
		level = slog.LevelInfo
	}
	h.log.Log(context.Background(), level, "open race game", "race", race, "player", player, "err", err)
}

// Stats is what the hall holds right now, for an operator's metrics.
type Stats struct {
	Races [Finished]int // races by phase, indexed by Waiting, Countdown, Running
	Rooms int           // private rooms among them
}

// Stats counts the races not yet finished and the private rooms. With
// several nodes, each counts the races it runs.
func (h *Hall) Stats() Stats {
	var st Stats
	h.mu.Lock()
	races := make([]*race, 0, len(h.lobbies)+len(h.rooms))
	for _, r := range h.lobbies {
		races = append(races, r)
	}
	for _, r := range h.rooms {
		races = append(races, r)
	}
	st.Rooms = len(h.rooms)
	h.mu.Unlock()
	if n := h.nodes; n != nil {
		for _, r := range n.owned() {
			races = append(races, r)
			if r.roomName() != "" {
				st.Rooms++
			}
		}
	}
	for _, r := range races {
		if ph := r.currentPhase(); ph < Finished {
			st.Races[ph]++
		}
	}
	return st
}

// Lobbies returns the races of the public lobbies, one per size at most,
// smallest size first: what the public web pages list. Private rooms are
// not listed: their word is their key. With several nodes, the lobbies of
// every node: a race that takes racers before one that runs.
func (h *Hall) Lobbies() []View {
	h.mu.Lock()
	races := make([]*race, 0, len(h.lobbies))
	for _, r := range h.lobbies {
		races = append(races, r)
	}
	h.mu.Unlock()
	out := make([]View, 0, len(races))
	for _, r := range races {
		v, version := r.view.Get()
		v.Version = version
		out = append(out, v)
	}
	if n := h.nodes; n != nil {
		bySize := map[int]View{}
		for _, v := range n.lobbyViews() {
			if o, ok := bySize[v.Size]; !ok || v.Phase <= Countdown && o.Phase > Countdown {
				bySize[v.Size] = v
			}
		}
		for _, v := range bySize {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b View) int { return a.Size - b.Size })
	return out
}
