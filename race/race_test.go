package race

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// nowhere is the address of a racer the tests do not place: counted
// against no network's rooms.
var nowhere netip.Addr

func newRaceService(t *testing.T, length time.Duration) (service, *sqlite.Store) {
	t.Helper()
	store, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return newService(store, nil, WithTimes(50*time.Millisecond, 50*time.Millisecond, length)), store
}

// service is a game service with its races, as the tests use them.
type service struct {
	*game.Service
	*Hall
}

// newService is a game service on store (with bus, if not nil) and its
// races, built with opts.
func newService(store store.Store, bus game.Bus, opts ...Option) service {
	return newServiceWith(store, bus, nil, opts...)
}

// newServiceWith is newService with the game service built with gopts
// too.
func newServiceWith(store store.Store, bus game.Bus, gopts []game.Option, opts ...Option) service {
	if bus != nil {
		gopts = append(gopts, game.WithBus(bus))
	}
	svc := game.New(store, nil, gopts...)
	return service{svc, New(svc, opts...)}
}

// Close closes the service and its races, as serve does at SIGTERM.
func (s service) Close() {
	s.Service.Close()
	s.Hall.Close()
}

// Stats are the races'.
func (s service) Stats() Stats { return s.Hall.Stats() }

func identify(t *testing.T, svc service, name string) game.Player {
	t.Helper()
	p, err := svc.Identify(context.Background(), "SHA256:"+name, "ssh-ed25519", name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// moveUntilMoved plays directions in turn until one changes the board.
func moveUntilMoved(t *testing.T, p *game.Play) engine.Result {
	t.Helper()
	for _, d := range engine.Directions() {
		res, err := p.Move(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		if res.Moved {
			return res
		}
	}
	t.Fatal("no move changes the board")
	return engine.Result{}
}

// waitFor reads a ticket's views until ok says yes.
func waitFor(t *testing.T, tk *Ticket, what string, ok func(View) bool) View {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		v, err := tk.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok(v) {
			return v
		}
	}
}

func TestPublicRace(t *testing.T) {
	svc, store := newRaceService(t, 400*time.Millisecond)
	ctx := context.Background()
	seats := []*game.Seat{svc.Seat(identify(t, svc, "ann"), nil), svc.Seat(identify(t, svc, "bob"), nil), svc.Seat(game.Guest, nil)}
	var tickets []*Ticket
	for _, st := range seats {
		defer st.Close()
		tk, err := svc.Join(ctx, st, nowhere, "", 4, false)
		if err != nil {
			t.Fatal(err)
		}
		tickets = append(tickets, tk)
	}
	v := waitFor(t, tickets[0], "the start", func(v View) bool { return v.Phase == Running })
	if len(v.Racers) != 3 || v.Size != 4 {
		t.Fatalf("race %+v", v)
	}
	plays := make([]*game.Play, 3)
	for i, tk := range tickets {
		if plays[i] = tk.Play(); plays[i] == nil {
			t.Fatalf("racer %d has no game", i)
		}
	}
	if plays[0].Board() != plays[1].Board() || plays[0].Board() != plays[2].Board() || plays[0].ID() == plays[1].ID() {
		t.Fatal("racers start on different tiles, or share a game")
	}
	// Ann plays most, bob a little, the guest nothing.
	for range 12 {
		moveUntilMoved(t, plays[0])
	}
	moveUntilMoved(t, plays[1])
	seen := waitFor(t, tickets[1], "ann's moves", func(v View) bool { return v.Racers[0].Score == plays[0].Score() })
	if seen.Racers[0].Board != plays[0].Board() {
		t.Fatal("an opponent's board is not what they see")
	}
	v = waitFor(t, tickets[2], "the end", func(v View) bool { return v.Phase == Finished })
	if _, err := plays[0].Move(ctx, 0); !errors.Is(err, game.ErrTimeUp) && !errors.Is(err, game.ErrOver) {
		t.Fatalf("a move after the race: %v", err)
	}
	if v.Racers[0].Place != 1 || v.Racers[1].Place == 1 || v.Racers[2].Place == 1 {
		t.Fatalf("places %+v", v.Racers)
	}
	if v.Racers[0].After <= 1500 || v.Racers[1].After >= 1500 || v.Racers[2].After != 0 {
		t.Fatalf("ratings after: %+v (the guest is unrated)", v.Racers)
	}
	// Stored: the entries and ratings; the games ended.
	board, err := store.RatingBoard(ctx, 10)
	if err != nil || len(board) != 2 || board[0].Name != "ann" || board[0].Races != 1 {
		t.Fatalf("rating board %+v, %v", board, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		// (Its record is kept back MaxRaceTime from its start: ErrRaceOn.)
		if g, err := store.FullGame(ctx, plays[0].ID()); err == nil && g.EndedAt != nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the race's game is not ended: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPrivateRoom(t *testing.T) {
	svc, _ := newRaceService(t, 300*time.Millisecond)
	ctx := context.Background()
	host := svc.Seat(identify(t, svc, "host"), nil)
	defer host.Close()
	if _, err := svc.Join(ctx, host, nowhere, "No Spaces!", 4, false); !errors.Is(err, ErrRoomWord) {
		t.Fatalf("bad word: %v", err)
	}
	h, err := svc.Join(ctx, host, nowhere, "blue-fox", 4, false)
	if err != nil || !h.Host() {
		t.Fatalf("host: %v", err)
	}
	if err := h.Start(); !errors.Is(err, ErrTooFew) {
		t.Fatalf("start alone: %v", err)
	}
	if err := h.Configure(5, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	var others []*Ticket
	for i := range MaxRacers - 1 {
		st := svc.Seat(identify(t, svc, fmt.Sprintf("p%d", i)), nil)
		defer st.Close()
		tk, err := svc.Join(ctx, st, nowhere, "blue-fox", 4, false)
		if err != nil {
			t.Fatal(err)
		}
		others = append(others, tk)
	}
	late := svc.Seat(identify(t, svc, "late"), nil)
	defer late.Close()
	if _, err := svc.Join(ctx, late, nowhere, "blue-fox", 4, false); !errors.Is(err, ErrRoomFull) {
		t.Fatalf("ninth racer: %v", err)
	}
	if err := others[0].Start(); !errors.Is(err, ErrNotHost) {
		t.Fatalf("a guest of the room started it: %v", err)
	}
	if err := others[0].Configure(3, time.Minute); !errors.Is(err, ErrNotHost) {
		t.Fatalf("a guest of the room set it up: %v", err)
	}
	if err := h.Configure(5, time.Second); err != nil { // below a minute: only with short test races
		t.Fatal(err)
	}
	others[len(others)-1].Leave() // one leaves before the start
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	v := waitFor(t, others[0], "the start", func(v View) bool { return v.Phase == Running })
	if v.Size != 5 || len(v.Racers) != MaxRacers-1 {
		t.Fatalf("race %+v", v)
	}
	if _, err := svc.Join(ctx, late, nowhere, "blue-fox", 4, false); !errors.Is(err, ErrStarted) {
		t.Fatalf("joining a running race: %v", err)
	}
	moveUntilMoved(t, others[1].Play())
	others[1].Leave() // a forfeit: last, whatever the score
	v = waitFor(t, h, "the end", func(v View) bool { return v.Phase == Finished })
	for _, r := range v.Racers {
		if r.Name == "p1" && (!r.Left || r.Place != MaxRacers-1) {
			t.Fatalf("the forfeit: %+v", r)
		}
	}
	// The room is free again for a new race.
	again, err := svc.Join(ctx, late, nowhere, "blue-fox", 4, false)
	if err != nil || !again.Host() {
		t.Fatalf("a new race in the room: %v", err)
	}
}

// runRace has names race in the public lobby of size and returns their
// tickets and games once it runs.
func runRace(t *testing.T, svc service, size int, names ...string) ([]*Ticket, []*game.Play) {
	t.Helper()
	var tickets []*Ticket
	for _, name := range names {
		st := svc.Seat(identify(t, svc, name), nil)
		t.Cleanup(st.Close)
		tk, err := svc.Join(context.Background(), st, nowhere, "", size, false)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tk.Leave)
		tickets = append(tickets, tk)
	}
	waitFor(t, tickets[0], "the start", func(v View) bool { return v.Phase == Running })
	plays := make([]*game.Play, len(tickets))
	for i, tk := range tickets {
		if plays[i] = tk.Play(); plays[i] == nil {
			t.Fatalf("%s has no game", names[i])
		}
	}
	return tickets, plays
}

// playOut moves until p's board is over.
func playOut(t *testing.T, p *game.Play) {
	t.Helper()
	for !p.Over() {
		moveUntilMoved(t, p)
	}
}

// TestRaceBoardOverKeepsItsPlace: a racer whose board is over keeps the
// place its score earns, whether they stay or leave; only leaving with
// moves still possible is a forfeit. The race ends at the clock while a
// racer still in has moves, and at once when every racer still in is
// over or gone, a forfeit included. (Dan filled his 3×3 board and
// pressed q; bob, who never moved, was placed first.)
func TestRaceBoardOverKeepsItsPlace(t *testing.T) {
	for _, tc := range []struct {
		name      string
		annLeaves bool // once her board is over
		bobLeaves bool // with his board as it started: a forfeit
		clock     bool // the race ends at the clock, else at once
	}{
		{"over and stays, the other never moves", false, false, true},
		{"over and leaves, the other never moves", true, false, true},
		{"over and stays, the other forfeits", false, true, false},
		{"over and leaves, the other forfeits", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			length := 3 * time.Second
			if !tc.clock {
				length = MaxTime // the test's waits end long before
			}
			svc, _ := newRaceService(t, length)
			tickets, plays := runRace(t, svc, 3, "ann", "bob")
			playOut(t, plays[0])
			if tc.annLeaves {
				tickets[0].Leave()
				v := waitFor(t, tickets[1], "ann's leaving", func(v View) bool { return v.Racers[0].Left })
				if v.Racers[0].Forfeit || v.Phase != Running {
					t.Fatalf("ann left with her board over: %+v in phase %v; want no forfeit, the race on for bob", v.Racers[0], v.Phase)
				}
			}
			if tc.bobLeaves {
				tickets[1].Leave()
			}
			v := waitFor(t, tickets[1], "the end", func(v View) bool { return v.Phase == Finished })
			if !tc.clock && !time.Now().Before(v.Ends) {
				t.Fatalf("the race ended at the clock, not once every board still in was over or gone")
			}
			ann, bob := v.Racers[0], v.Racers[1]
			if ann.Place != 1 || ann.Forfeit || ann.Left != tc.annLeaves || ann.Score != plays[0].Score() {
				t.Errorf("ann, whose board is over with %d points: %+v", plays[0].Score(), ann)
			}
			if bob.Place != 2 || bob.Forfeit != tc.bobLeaves || bob.Left != tc.bobLeaves {
				t.Errorf("bob, who never moved: %+v", bob)
			}
		})
	}
}

// A racer whose board is over has an ended game, but its seed is the
// race's: its record, replay and review are kept back while the race
// runs (a second key in the race would know every tile to come).
func TestRaceGameKeptBackWhileTheRaceRuns(t *testing.T) {
	svc, _ := newRaceService(t, MaxTime)
	ctx := context.Background()
	tickets, plays := runRace(t, svc, 3, "ann", "bob")
	playOut(t, plays[0])
	if v := tickets[1].Now(); v.Phase != Running {
		t.Fatalf("phase %v, want running", v.Phase)
	}
	id := plays[0].ID()
	if _, err := svc.Record(ctx, id); !errors.Is(err, game.ErrRaceOn) {
		t.Errorf("export of an ended racer's game mid-race: %v, want ErrRaceOn", err)
	}
	if _, err := svc.Replay(ctx, id); !errors.Is(err, game.ErrRaceOn) {
		t.Errorf("replay: %v, want ErrRaceOn", err)
	}
	if _, err := svc.StoredReview(ctx, id); !errors.Is(err, game.ErrRaceOn) {
		t.Errorf("review: %v, want ErrRaceOn", err)
	}
	if _, err := svc.Verify(ctx, id); err != nil { // tells nothing of the seed
		t.Errorf("verify: %v", err)
	}
}

// TestRoomsPerNetwork: the players of one network (an IPv4 address, the
// /64s of one IPv6 /56) open at most roomsPerNetwork private rooms on a
// node; the next is refused with ErrRoomsHere, while a player elsewhere
// still opens one and anyone joins the rooms that are open. A room that
// closes gives its place back. Before, one client's guests could take all
// of a node's rooms.
func TestRoomsPerNetwork(t *testing.T) {
	single, _ := newRaceService(t, time.Minute)
	nodes, _ := newRaceCluster(t, 2, time.Minute)
	ipv4 := func(int) netip.Addr { return netip.MustParseAddr("192.0.2.7") }
	ipv6 := func(i int) netip.Addr {
		return netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 6: 0, 7: byte(i), 15: 1})
	}
	for _, tt := range []struct {
		name string
		svc  service
		from func(i int) netip.Addr
	}{
		{"one node, IPv4", single, ipv4},
		{"two nodes, IPv6", nodes[0].svc, ipv6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			seat := func(name string) *game.Seat {
				s := tt.svc.Seat(identify(t, tt.svc, name), nil)
				t.Cleanup(s.Close)
				return s
			}
			var first *Ticket
			for i := range roomsPerNetwork {
				tk, err := tt.svc.Join(ctx, seat(fmt.Sprintf("host-%d", i)), tt.from(i), fmt.Sprintf("room-%d", i), 4, false)
				if err != nil {
					t.Fatalf("room %d: %v", i, err)
				}
				t.Cleanup(tk.Leave)
				if i == 0 {
					first = tk
				}
			}
			if _, err := tt.svc.Join(ctx, seat("one-more"), tt.from(roomsPerNetwork), "room-x", 4, false); !errors.Is(err, ErrRoomsHere) {
				t.Fatalf("a room over the network's share: %v, want %v", err, ErrRoomsHere)
			}
			tk, err := tt.svc.Join(ctx, seat("joiner"), tt.from(1), "room-1", 4, false)
			if err != nil {
				t.Fatalf("joining an open room from that network: %v", err)
			}
			t.Cleanup(tk.Leave)
			tk, err = tt.svc.Join(ctx, seat("elsewhere"), netip.MustParseAddr("198.51.100.1"), "room-y", 4, false)
			if err != nil {
				t.Fatalf("a room from elsewhere: %v", err)
			}
			t.Cleanup(tk.Leave)
			first.Leave() // room-0 is empty, and closes
			tk, err = tt.svc.Join(ctx, seat("next"), tt.from(0), "room-z", 4, false)
			if err != nil {
				t.Fatalf("a room once one closed: %v", err)
			}
			t.Cleanup(tk.Leave)
		})
	}
}
