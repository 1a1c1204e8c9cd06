package race

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// memHub is an in-memory bus between the services of one test: every
// node's events reach every node that is up, in order, from one goroutine
// per node, like package store/postgres's LISTEN/NOTIFY bus.
type memHub struct {
	mu    sync.Mutex
	nodes []*memBus
}

type memBus struct {
	hub  *memHub
	down atomic.Bool // cut off: sends nothing, hears nothing
	mu   sync.Mutex
	subs map[string][]func([]byte)
	ch   chan [2]string
}

func (h *memHub) bus(t *testing.T) *memBus {
	b := &memBus{hub: h, subs: map[string][]func([]byte){}, ch: make(chan [2]string, 4096)}
	h.mu.Lock()
	h.nodes = append(h.nodes, b)
	h.mu.Unlock()
	done := make(chan struct{})
	go func() {
		for {
			select {
			case e := <-b.ch:
				b.mu.Lock()
				fns := append([]func([]byte){}, b.subs[e[0]]...)
				b.mu.Unlock()
				for _, fn := range fns {
					fn([]byte(e[1]))
				}
			case <-done:
				return
			}
		}
	}()
	t.Cleanup(func() { close(done) })
	return b
}

func (b *memBus) Publish(_ context.Context, topic string, payload []byte) error {
	if b.down.Load() {
		return nil // lost, as a notification sent while cut off
	}
	b.hub.mu.Lock()
	defer b.hub.mu.Unlock()
	for _, n := range b.hub.nodes {
		if !n.down.Load() {
			n.ch <- [2]string{topic, string(payload)}
		}
	}
	return nil
}

func (b *memBus) Subscribe(topic string, fn func([]byte)) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.subs[topic] = append(b.subs[topic], fn)
	return func() {}
}

// memDirectory is the race directory of one test's nodes, with leases.
type memDirectory struct {
	lease time.Duration
	mu    sync.Mutex
	keys  map[string]memOwner
}

type memOwner struct {
	race, node string
	until      time.Time
}

// dirStore is one node's store: the shared SQLite store and directory.
type dirStore struct {
	*sqlite.Store
	dir  *memDirectory
	node string
	// alive is false once the node is dead: its leases are not renewed.
	alive atomic.Bool

	recordedMu sync.Mutex
	recorded   []store.RaceResult // the races this node stored
}

// RecordRace stores r and keeps it for the test to read.
func (d *dirStore) RecordRace(ctx context.Context, r store.RaceResult) error {
	if err := d.Store.RecordRace(ctx, r); err != nil {
		return err
	}
	d.recordedMu.Lock()
	defer d.recordedMu.Unlock()
	d.recorded = append(d.recorded, r)
	return nil
}

// recordedEntry is the stored entry of game gameID, false if none.
func (d *dirStore) recordedEntry(gameID int64) (store.RaceEntry, bool) {
	d.recordedMu.Lock()
	defer d.recordedMu.Unlock()
	for _, r := range d.recorded {
		for _, e := range r.Entries {
			if e.GameID == gameID {
				return e, true
			}
		}
	}
	return store.RaceEntry{}, false
}

func (d *dirStore) Node() string { return d.node }

func (d *dirStore) ClaimRace(_ context.Context, key, id, replace string) (string, string, error) {
	d.dir.mu.Lock()
	defer d.dir.mu.Unlock()
	o, ok := d.dir.keys[key]
	if !ok || time.Now().After(o.until) || o.race == replace {
		o = memOwner{id, d.node, time.Now().Add(d.dir.lease)}
		d.dir.keys[key] = o
	}
	return o.race, o.node, nil
}

func (d *dirStore) ReleaseRace(_ context.Context, key, id string) error {
	d.dir.mu.Lock()
	defer d.dir.mu.Unlock()
	if o := d.dir.keys[key]; o.race == id && o.node == d.node {
		delete(d.dir.keys, key)
	}
	return nil
}

// renew keeps the node's leases current while it lives.
func (d *dirStore) renew(t *testing.T) {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		tick := time.NewTicker(d.dir.lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if !d.alive.Load() {
				continue
			}
			d.dir.mu.Lock()
			for k, o := range d.dir.keys {
				if o.node == d.node {
					o.until = time.Now().Add(d.dir.lease)
					d.dir.keys[k] = o
				}
			}
			d.dir.mu.Unlock()
		}
	}()
}

// raceNode is one node of a test cluster.
type raceNode struct {
	svc   service
	bus   *memBus
	store *dirStore
}

// newRaceCluster starts n nodes on one store, one directory and one bus.
func newRaceCluster(t *testing.T, n int, length time.Duration) ([]raceNode, *sqlite.Store) {
	t.Helper()
	return newRaceClusterClock(t, n, length, 50*time.Millisecond, 300*time.Millisecond)
}

// newRaceClusterClock is newRaceCluster with the nodes' renewal and
// expiry of races.
func newRaceClusterClock(t *testing.T, n int, length, renew, expiry time.Duration) ([]raceNode, *sqlite.Store) {
	t.Helper()
	return newRaceNodes(t, n, length, renew, expiry, nil)
}

// newRaceNodes is newRaceClusterClock with node i's game service built
// with gameOpts(i) too (nil: none).
func newRaceNodes(t *testing.T, n int, length, renew, expiry time.Duration, gameOpts func(i int) []game.Option) ([]raceNode, *sqlite.Store) {
	t.Helper()
	store, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	hub := &memHub{}
	dir := &memDirectory{lease: 400 * time.Millisecond, keys: map[string]memOwner{}}
	var nodes []raceNode
	for i := range n {
		ds := &dirStore{Store: store, dir: dir, node: fmt.Sprintf("node%d", i+1)}
		ds.alive.Store(true)
		ds.renew(t)
		b := hub.bus(t)
		// The lobby's countdown leaves time for a third joiner from
		// the other node, even under the race detector on a busy machine.
		var gopts []game.Option
		if gameOpts != nil {
			gopts = gameOpts(i)
		}
		svc := newServiceWith(ds, b, gopts, WithTimes(time.Second, 50*time.Millisecond, length),
			withClock(renew, expiry))
		nodes = append(nodes, raceNode{svc, b, ds})
	}
	return nodes, store
}

// TestRoomAcrossNodes: a private room opened on one node, joined from
// the other: the same rules as on one node (host, full room, the same
// player twice, a started race), the same tiles, each other's moves, and
// one result, stored once, with ratings.
func TestRoomAcrossNodes(t *testing.T) {
	nodes, store := newRaceCluster(t, 2, 500*time.Millisecond)
	a, b := nodes[0].svc, nodes[1].svc
	ctx := context.Background()
	host := a.Seat(identify(t, a, "host"), nil)
	defer host.Close()
	h, err := a.Join(ctx, host, nowhere, "blue-fox", 4, false)
	if err != nil || !h.Host() {
		t.Fatalf("host: %v", err)
	}
	guest := b.Seat(identify(t, b, "guest1"), nil)
	defer guest.Close()
	g, err := b.Join(ctx, guest, nowhere, "blue-fox", 4, false)
	if err != nil {
		t.Fatal(err)
	}
	if g.far == nil {
		t.Fatal("the second node opened a room of its own")
	}
	v := waitFor(t, g, "both racers", func(v View) bool { return len(v.Racers) == 2 })
	if hv, _ := h.race.view.Get(); v.ID != hv.ID || v.Host != "host" || g.Me(v) != 1 || g.Host() {
		t.Fatalf("the other node's view: %+v, me %d, host %v", v, g.Me(v), g.Host())
	}
	if err := g.Start(); !errors.Is(err, ErrNotHost) {
		t.Fatalf("a guest of the room started it from the other node: %v", err)
	}
	if err := g.Configure(3, time.Minute); !errors.Is(err, ErrNotHost) {
		t.Fatalf("a guest of the room set it up from the other node: %v", err)
	}
	// The same player from the host's node: already in the race.
	again := a.Seat(identify(t, a, "guest1"), nil)
	defer again.Close()
	if _, err := a.Join(ctx, again, nowhere, "blue-fox", 4, false); !errors.Is(err, ErrInRace) {
		t.Fatalf("the same player from the other node: %v", err)
	}
	// Fill the room from both nodes; the ninth is refused.
	var extra []*Ticket
	for i := range MaxRacers - 2 {
		n := nodes[i%2].svc
		st := n.Seat(identify(t, n, fmt.Sprintf("p%d", i)), nil)
		defer st.Close()
		tk, err := n.Join(ctx, st, nowhere, "blue-fox", 4, false)
		if err != nil {
			t.Fatal(err)
		}
		extra = append(extra, tk)
	}
	late := b.Seat(identify(t, b, "late"), nil)
	defer late.Close()
	if _, err := b.Join(ctx, late, nowhere, "blue-fox", 4, false); !errors.Is(err, ErrRoomFull) || err.Error() != "room blue-fox: the room is full" {
		t.Fatalf("ninth racer, from the other node: %v", err)
	}
	for _, tk := range extra {
		tk.Leave()
	}
	waitFor(t, g, "the others gone", func(v View) bool { return len(v.Racers) == 2 })
	if err := h.Configure(5, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	vg := waitFor(t, g, "the start", func(v View) bool { return v.Phase == Running })
	if vg.Size != 5 {
		t.Fatalf("the other node's race is %d×%d", vg.Size, vg.Size)
	}
	ph, pg := h.Play(), g.Play()
	if ph == nil || pg == nil {
		t.Fatal("a racer has no game once the race runs")
	}
	if ph.Board() != pg.Board() || ph.Size() != 5 || ph.ID() == pg.ID() || ph.Contest() != pg.Contest() {
		t.Fatal("the racers on two nodes start on different tiles, or share a game")
	}
	if _, err := b.Join(ctx, late, nowhere, "blue-fox", 4, false); !errors.Is(err, ErrStarted) {
		t.Fatalf("joining a running race from the other node: %v", err)
	}
	// Each sees the other's moves.
	for range 6 {
		moveUntilMoved(t, pg)
	}
	moveUntilMoved(t, ph)
	seen := waitFor(t, h, "the far racer's moves", func(v View) bool { return v.Racers[1].Score == pg.Score() && v.Racers[1].Board == pg.Board() })
	if seen.Racers[1].GameID != pg.ID() {
		t.Fatalf("the far racer's game is %d, not %d", seen.Racers[1].GameID, pg.ID())
	}
	waitFor(t, g, "the host's moves", func(v View) bool { return v.Racers[0].Score == ph.Score() && v.Racers[0].Board == ph.Board() })
	// The end: the same places on both nodes, rated, stored once.
	end := waitFor(t, g, "the end", func(v View) bool { return v.Phase == Finished })
	endH := waitFor(t, h, "the end", func(v View) bool { return v.Phase == Finished })
	for i := range 2 {
		if end.Racers[i].Place != endH.Racers[i].Place || end.Racers[i].After != endH.Racers[i].After || end.Racers[i].Place == 0 || end.Racers[i].After == 0 {
			t.Fatalf("places and ratings: %+v on the racer's node, %+v on the owner", end.Racers, endH.Racers)
		}
	}
	if _, err := pg.Move(ctx, 0); !errors.Is(err, game.ErrTimeUp) && !errors.Is(err, game.ErrOver) {
		t.Fatalf("a move after the race on the far node: %v", err)
	}
	board, err := store.RatingBoard(ctx, 10)
	if err != nil || len(board) != 2 || board[0].Races != 1 || board[1].Races != 1 {
		t.Fatalf("rating board %+v, %v", board, err)
	}
	// The room is free again, for whichever node opens it next.
	next, err := b.Join(ctx, late, nowhere, "blue-fox", 4, false)
	if err != nil || !next.Host() || next.far != nil {
		t.Fatalf("a new race in the room from the other node: %v", err)
	}
}

// TestLobbyAcrossNodes: players of two nodes meet in the public lobby; a
// bot on the far node marks the race; a running lobby race sends the next
// joiner to a new one.
func TestLobbyAcrossNodes(t *testing.T) {
	nodes, _ := newRaceCluster(t, 2, 3*time.Second)
	a, b := nodes[0].svc, nodes[1].svc
	ctx := context.Background()
	ann := a.Seat(identify(t, a, "ann"), nil)
	defer ann.Close()
	bot := b.Seat(identify(t, b, "robo"), nil)
	defer bot.Close()
	guest := b.Seat(game.Guest, nil)
	defer guest.Close()
	ta, err := a.Join(ctx, ann, nowhere, "", 4, false)
	if err != nil {
		t.Fatal(err)
	}
	// Every node lists the lobby; the node that runs it counts it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		l := b.Lobbies()
		if len(l) == 1 && l[0].Size == 4 && len(l[0].Racers) == 1 && l[0].Racers[0].Name == "ann" && l[0].Phase == Waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other node's lobbies: %+v", l)
		}
	}
	if sa, sb := a.Stats(), b.Stats(); sa.Races[Waiting] != 1 || sb.Races[Waiting] != 0 {
		t.Fatalf("races counted: %+v on the owner, %+v on the other node", sa.Races, sb.Races)
	}
	tb, err := b.Join(ctx, bot, nowhere, "", 4, true)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := b.Join(ctx, guest, nowhere, "", 4, false)
	if err != nil {
		t.Fatal(err)
	}
	v := waitFor(t, tg, "the start", func(v View) bool { return v.Phase == Running })
	if len(v.Racers) != 3 || !v.Bots || tg.Me(v) != 2 || tb.Me(v) != 1 {
		t.Fatalf("the lobby across nodes: %+v", v)
	}
	pa, pb, pgst := ta.Play(), tb.Play(), tg.Play()
	if pa.Board() != pb.Board() || pa.Board() != pgst.Board() || pb.Kind() != store.KindBot {
		t.Fatal("racers of one lobby race on different tiles, or the bot plays as a human")
	}
	// The race runs: a newcomer on either node opens the next race.
	late := a.Seat(identify(t, a, "late"), nil)
	defer late.Close()
	tl, err := a.Join(ctx, late, nowhere, "", 4, false)
	if err != nil {
		t.Fatal(err)
	}
	if lv := waitFor(t, tl, "the next race", func(View) bool { return true }); lv.ID == v.ID || len(lv.Racers) != 1 {
		t.Fatalf("joined %+v while %s runs", lv, v.ID)
	}
	tl.Leave()
	moveUntilMoved(t, pgst)
	tg.Leave() // a forfeit, from the far node
	end := waitFor(t, ta, "the end", func(v View) bool { return v.Phase == Finished })
	if !end.Racers[2].Left || end.Racers[2].Place != 3 || end.Racers[0].After != 0 {
		t.Fatalf("the end with a bot and a forfeit: %+v", end.Racers)
	}
	waitFor(t, tb, "the end on the bot's node", func(v View) bool { return v.Phase == Finished && v.Racers[1].Place != 0 })
}

// TestRaceOwnerDies: the node running a race goes silent mid-race. The
// racer on the other node is told the race is over, unranked, and keeps
// its game as played; the dead node's room is free once its lease runs
// out; a racer's node that goes silent forfeits its racer.
func TestRaceOwnerDies(t *testing.T) {
	nodes, _ := newRaceCluster(t, 2, time.Minute)
	a, b := nodes[0].svc, nodes[1].svc
	ctx := context.Background()
	h, g := raceAcross(t, a, b, "red-owl")
	pg := g.Play()
	moveUntilMoved(t, pg)
	moved := pg.Moves()

	nodes[0].bus.down.Store(true)
	nodes[0].store.alive.Store(false)
	end := waitFor(t, g, "the race lost", func(v View) bool { return v.Phase == Finished && v.Lost })
	for _, r := range end.Racers {
		if r.Place != 0 || r.After != 0 {
			t.Fatalf("a lost race ranked its racers: %+v", end.Racers)
		}
	}
	// The game is kept, and plays on until its clock runs out.
	moveUntilMoved(t, pg)
	if fg, err := nodes[1].store.FullGame(ctx, pg.ID()); err != nil || len(fg.Dirs) != moved+1 {
		t.Fatalf("the far racer's stored game: %d moves, played %d; %v", len(fg.Dirs), moved+1, err)
	}
	// The room is free again once the dead node's lease ran out.
	again := b.Seat(identify(t, b, "next"), nil)
	defer again.Close()
	n, err := b.Join(ctx, again, nowhere, "red-owl", 4, false)
	if err != nil || n.far != nil || !n.Host() {
		t.Fatalf("the dead node's room: %v", err)
	}
	// And the owner, cut off, has its far racer forfeit.
	left := waitFor(t, h, "the far racer's forfeit", func(v View) bool { return v.Racers[1].Left })
	if left.Phase != Running {
		t.Fatalf("the owner's race after its far racer went silent: %+v", left)
	}
}

// TestJoinWhileDeadOwnersLeaseRuns: a joiner comes to a room right as
// its node goes silent, while that node's lease on the room still runs.
// The owner does not answer; the join waits the lease out and opens the
// room on the joiner's node rather than giving up on the first silence.
func TestJoinWhileDeadOwnersLeaseRuns(t *testing.T) {
	nodes, _ := newRaceCluster(t, 2, time.Minute)
	a, b := nodes[0].svc, nodes[1].svc
	hs := a.Seat(identify(t, a, "host"), nil)
	defer hs.Close()
	if _, err := a.Join(context.Background(), hs, nowhere, "grey-elk", 4, false); err != nil {
		t.Fatal(err)
	}
	nodes[0].bus.down.Store(true)
	nodes[0].store.alive.Store(false)
	js := b.Seat(identify(t, b, "joiner"), nil)
	defer js.Close()
	j, err := b.Join(context.Background(), js, nowhere, "grey-elk", 4, false)
	if err != nil || j.far != nil || !j.Host() {
		t.Fatalf("joined a room whose node went silent: %v", err)
	}
}

// TestRoomHostOnAnotherNode: the host leaves a room before the start;
// the next racer, on another node than the room's, becomes the host and
// sets it up and starts it from there; the room's node runs the race
// with no racer of its own, to its end.
func TestRoomHostOnAnotherNode(t *testing.T) {
	nodes, _ := newRaceCluster(t, 2, time.Second)
	a, b := nodes[0].svc, nodes[1].svc
	ctx := context.Background()
	opener := a.Seat(identify(t, a, "opener"), nil)
	defer opener.Close()
	o, err := a.Join(ctx, opener, nowhere, "green-elk", 4, false)
	if err != nil {
		t.Fatal(err)
	}
	var far []*Ticket
	for _, name := range []string{"bea", "cid"} {
		st := b.Seat(identify(t, b, name), nil)
		defer st.Close()
		tk, err := b.Join(ctx, st, nowhere, "green-elk", 4, false)
		if err != nil {
			t.Fatal(err)
		}
		far = append(far, tk)
	}
	waitFor(t, far[1], "three racers", func(v View) bool { return len(v.Racers) == 3 })
	o.Leave()
	v := waitFor(t, far[0], "the new host", func(v View) bool { return len(v.Racers) == 2 && v.Host == "bea" })
	if !far[0].Host() || far[1].Host() || far[0].Me(v) != 0 || far[1].Me(v) != 1 {
		t.Fatalf("after the host left: bea host %v, cid host %v, %+v", far[0].Host(), far[1].Host(), v)
	}
	if err := far[1].Start(); !errors.Is(err, ErrNotHost) {
		t.Fatalf("cid started bea's room: %v", err)
	}
	if err := far[0].Configure(3, 90*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := far[0].Configure(3, 11*time.Minute); err == nil || err.Error() != "length 11m0s: must be 1m0s to 10m0s" {
		t.Fatalf("too long a race, from the other node: %v", err)
	}
	if err := far[0].Configure(3, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := far[0].Start(); err != nil {
		t.Fatal(err)
	}
	run := waitFor(t, far[1], "the start", func(v View) bool { return v.Phase == Running })
	if run.Size != 3 || far[0].Play() == nil || far[0].Play().Board() != far[1].Play().Board() {
		t.Fatalf("the race run from the other node: %+v", run)
	}
	moveUntilMoved(t, far[1].Play())
	end := waitFor(t, far[0], "the end", func(v View) bool { return v.Phase == Finished })
	if end.Racers[0].Place+end.Racers[1].Place != 3 || end.Racers[1].Place != 1 && end.Racers[1].Score > end.Racers[0].Score {
		t.Fatalf("the places: %+v", end.Racers)
	}
	if hv, _ := o.race.view.Get(); hv.Phase != Finished {
		t.Fatalf("the room's node: %+v", hv)
	}
}

// TestRaceStateFitsTheBus: the largest race there can be (eight racers on
// 8×8, every tile 2^20, the widest names in four-byte characters, placed
// and rated), as a join's answer, fits in one PostgreSQL notification
// (package store/postgres: 7,900 bytes with the topic).
// TestRaceStateNamesCleaned: a race's state from another node (one of an
// older version, say, that sent its names as stored) shows its names as
// names are shown: escapes and controls never reach a racer's screen,
// and the host is still found among the racers by name.
func TestRaceStateNamesCleaned(t *testing.T) {
	const raw = "bob\x1b[2J\x1b]0;evil\x07\u009b31m\u202e"
	st := raceState{Race: "race:0123456789abcdef", Room: "blue-fox" + raw, Size: 4, Host: raw,
		Racers: []stateRacer{{Name: raw, Key: "Q2x7Yt0aB9cd" + raw}}}
	v := st.view(nil)
	if v.Host != "bob" || v.Racers[0].Name != "bob" {
		t.Fatalf("host %q, racer %q; want bob, cleaned", v.Host, v.Racers[0].Name)
	}
	// The room word is shown on the racers' screens, the key in a racing
	// bot's lines.
	if v.Room != "blue-foxbob[2J]0;evil31m" || v.Racers[0].Key != "Q2x7Yt0aB9cdbob[2J]0;evil31m" {
		t.Fatalf("room %q, key %q; want them cleaned", v.Room, v.Racers[0].Key)
	}
}

func TestRaceStateFitsTheBus(t *testing.T) {
	row := strings.TrimSuffix(strings.Repeat("1048576 ", engine.MaxSize), " ")
	board, err := engine.ParseBoard(strings.TrimSuffix(strings.Repeat(row+"/", engine.MaxSize), "/"))
	if err != nil {
		t.Fatal(err)
	}
	st := raceState{Race: "race:0123456789abcdef", Room: strings.Repeat("w", 24), Seq: 1 << 40, Size: engine.MaxSize,
		Length: MaxTime, Phase: Finished, Starts: time.Now(), Ends: time.Now(), Host: strings.Repeat("😀", store.MaxNameWidth/2),
		HostTicket: "0123456789abcdef", Bots: true, Seed: 1<<64 - 1}
	for range MaxRacers {
		st.Racers = append(st.Racers, stateRacer{Name: strings.Repeat("😀", store.MaxNameWidth/2), Key: "Q2x7Yt0aB9cd", Bot: true,
			Rating: 1234.5678901234, Board: board.String(), Score: 1 << 30, MaxTile: 1 << 20, Over: true, Left: true, Forfeit: true,
			Place: MaxRacers, After: 1234.5678901234, GameID: 1 << 50, Ticket: "0123456789abcdef"})
	}
	payload, err := json.Marshal(raceAnswer{Req: "0123456789abcdef", State: &st})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(TopicAnswer) + 1 + len(payload); n > 7900 {
		t.Fatalf("the largest race is %d bytes on the bus, over 7,900", n)
	}
	t.Logf("the largest race: %d bytes on the bus", len(payload))
}

// TestRaceOwnerShutsDown: the node running a race shuts down (Close, as
// serve does at SIGTERM): racers elsewhere are told at once that the race
// is lost, not after the owner's silence; nothing is ranked or stored.
func TestRaceOwnerShutsDown(t *testing.T) {
	nodes, store := newRaceClusterClock(t, 2, time.Minute, time.Hour, time.Hour)
	a, b := nodes[0].svc, nodes[1].svc
	ctx := context.Background()
	_, g := raceAcross(t, a, b, "last-orders")
	moveUntilMoved(t, g.Play())
	a.Close()
	end := waitFor(t, g, "the race given up", func(v View) bool { return v.Phase == Finished })
	if !end.Lost || end.Racers[0].Place != 0 || end.Racers[1].Place != 0 {
		t.Fatalf("the race as its owner shut down: %+v", end)
	}
	if st := a.Stats(); st.Races != [Finished]int{} {
		t.Fatalf("the owner still runs races: %+v", st.Races)
	}
	if board, err := store.RatingBoard(ctx, 10); err != nil || len(board) != 0 {
		t.Fatalf("a given-up race was rated: %+v, %v", board, err)
	}
}

// raceAcross races "host" on node a against "far" on node b in room
// word, started: the tickets once the far racer sees the race run.
func raceAcross(t *testing.T, a, b service, word string) (host, far *Ticket) {
	t.Helper()
	return raceAcrossTold(t, a, b, word, nil)
}

// raceAcrossTold is raceAcross with the far racer's seat telling
// farTakenOver of a takeover (game.Service.Seat).
func raceAcrossTold(t *testing.T, a, b service, word string, farTakenOver func(error)) (host, far *Ticket) {
	t.Helper()
	ctx := context.Background()
	hs := a.Seat(identify(t, a, "host"), nil)
	t.Cleanup(hs.Close)
	h, err := a.Join(ctx, hs, nowhere, word, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	fs := b.Seat(identify(t, b, "far"), farTakenOver)
	t.Cleanup(fs.Close)
	g, err := b.Join(ctx, fs, nowhere, word, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, h, "the far racer", func(v View) bool { return len(v.Racers) == 2 })
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, g, "the start", func(v View) bool { return v.Phase == Running })
	return h, g
}

// TestFarRacerBoardOver: a racer on another node whose board is over
// keeps its place when they leave, as on one node, even when the owner
// heard none of their moves (the owner's queue of requests drops what it
// cannot take): the leave carries the board as left. The owner's racer
// then leaving with moves still possible forfeits, and the race ends at
// once: every racer still in it is over or gone.
func TestFarRacerBoardOver(t *testing.T) {
	for _, unheard := range []bool{false, true} {
		t.Run(fmt.Sprintf("moves unheard %v", unheard), func(t *testing.T) {
			nodes, _ := newRaceCluster(t, 2, MaxTime)
			a, b := nodes[0].svc, nodes[1].svc
			ctx := context.Background()
			hs := a.Seat(identify(t, a, "host"), nil)
			t.Cleanup(hs.Close)
			h, err := a.Join(ctx, hs, nowhere, "full-board", 3, false)
			if err != nil {
				t.Fatal(err)
			}
			fs := b.Seat(identify(t, b, "far"), nil)
			t.Cleanup(fs.Close)
			g, err := b.Join(ctx, fs, nowhere, "full-board", 3, false)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(g.Leave)
			waitFor(t, h, "the far racer", func(v View) bool { return len(v.Racers) == 2 })
			if err := h.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, g, "the start", func(v View) bool { return v.Phase == Running })
			pg := g.Play()
			if unheard {
				g.hook.unheard.Store(true) // the moves are not reported
			}
			playOut(t, pg)
			g.Leave() // at once: the report of the last move may still be on its way
			v := waitFor(t, h, "the far racer's leaving", func(v View) bool { return v.Racers[1].Left })
			if far := v.Racers[1]; far.Forfeit || !far.Over || far.Score != pg.Score() || v.Phase != Running {
				t.Fatalf("the far racer left with the board over: %+v in phase %v; want no forfeit, the race on", far, v.Phase)
			}
			h.Leave()
			end := waitFor(t, h, "the end", func(v View) bool { return v.Phase == Finished })
			if host, far := end.Racers[0], end.Racers[1]; far.Place != 1 || far.Forfeit || host.Place != 2 || !host.Forfeit {
				t.Fatalf("the end: %+v", end.Racers)
			}
		})
	}
}

// TestFarMoveAfterTheRaceIsStored: the owner stores the race as its clock
// runs out, which ends the racers' games in the store; a move that the far
// racer's node let through before the deadline reaches the store after
// that and is refused. (Here the far node's clock is behind the owner's,
// which makes every move after the end such a move; in the cluster test
// it was a racing bot's move in flight at the deadline on a busy machine.)
// The far racer's session still holds its game: the move is late,
// game.ErrTimeUp, and the session is not told of a newer one.
func TestFarMoveAfterTheRaceIsStored(t *testing.T) {
	behind := func() time.Time { return time.Now().Add(-time.Minute) }
	nodes, _ := newRaceNodes(t, 2, 500*time.Millisecond, 50*time.Millisecond, 300*time.Millisecond, func(i int) []game.Option {
		if i == 1 {
			return []game.Option{game.WithClock(behind)}
		}
		return nil
	})
	var told atomic.Value
	_, g := raceAcrossTold(t, nodes[0].svc, nodes[1].svc, "late-move", func(why error) { told.Store(why) })
	t.Cleanup(g.Leave)
	pg := g.Play()
	waitFor(t, g, "the race stored", func(v View) bool { return v.Phase == Finished })
	before := pg.Board()
	var moveErr error
	for _, d := range engine.Directions() {
		var res engine.Result
		if res, moveErr = pg.Move(context.Background(), d); moveErr != nil || res.Moved {
			break
		}
	}
	if !errors.Is(moveErr, game.ErrTimeUp) {
		t.Fatalf("the far racer's move after the race was stored: %v, want %v", moveErr, game.ErrTimeUp)
	}
	if why := told.Load(); why != nil {
		t.Fatalf("the far racer's session was told %v", why)
	}
	if pg.Board() != before {
		t.Fatal("the refused move shows on the far racer's game")
	}
}

// TestFarRacersLastMoveCounts: the far racer's last scoring move is
// answered before the race's clock runs out, but its report does not
// reach the owner before the clock does (here it is not sent at all).
// The race's result counts it all the same: the stored entry's score is
// the game's as stored and as the racer's screen shows it, and the place
// follows it. Both racers play the same moves on the same tiles, the
// host first, so without that move the tie goes to the host.
func TestFarRacersLastMoveCounts(t *testing.T) {
	nodes, st := newRaceNodes(t, 2, 3*time.Second, 50*time.Millisecond, 2*time.Second, nil)
	h, g := raceAcross(t, nodes[0].svc, nodes[1].svc, "last-move")
	t.Cleanup(g.Leave)
	hp, gp := h.Play(), g.Play()
	for hp.Score() == 0 {
		moveUntilMoved(t, hp)
		moveUntilMoved(t, gp)
	}
	if hp.Board() != gp.Board() {
		t.Fatal("the same moves on the same tiles made different boards")
	}
	waitFor(t, h, "the far racer's score at the owner", func(v View) bool { return v.Racers[1].Score == hp.Score() })
	g.hook.unheard.Store(true)
	for gp.Score() == hp.Score() {
		moveUntilMoved(t, gp)
	}
	end := waitFor(t, g, "the end", func(v View) bool { return v.Phase == Finished })
	entry, ok := nodes[0].store.recordedEntry(gp.ID())
	if !ok {
		t.Fatal("the far racer's entry was not stored")
	}
	stored, err := st.FullGame(context.Background(), gp.ID())
	if err != nil {
		t.Fatal(err)
	}
	if entry.Score != stored.Score || entry.Score != gp.Score() || end.Racers[1].Score != gp.Score() {
		t.Fatalf("the far racer's score: %d in the race's result, %d in its game as stored, %d in its game, %d on its screen",
			entry.Score, stored.Score, gp.Score(), end.Racers[1].Score)
	}
	if host, far := end.Racers[0], end.Racers[1]; far.Place != 1 || host.Place != 2 || entry.Place != 1 {
		t.Fatalf("places: host %d (%d points), far %d (%d points; %d stored)", host.Place, host.Score, far.Place, far.Score, entry.Place)
	}
}

// TestFarNodeSilentAtTheEnd: the far racer's node is cut off as the
// race's clock runs out, so no final report comes: the owner ends the
// race all the same, once the node has been silent for the expiry, with
// the score it last heard of.
func TestFarNodeSilentAtTheEnd(t *testing.T) {
	nodes, _ := newRaceNodes(t, 2, time.Second, 50*time.Millisecond, 300*time.Millisecond, nil)
	h, g := raceAcross(t, nodes[0].svc, nodes[1].svc, "cut-off")
	t.Cleanup(g.Leave)
	gp := g.Play()
	for gp.Score() == 0 {
		moveUntilMoved(t, gp)
	}
	heard := waitFor(t, h, "the far racer's score at the owner", func(v View) bool { return v.Racers[1].Score == gp.Score() })
	nodes[1].bus.down.Store(true)
	end := waitFor(t, h, "the end", func(v View) bool { return v.Phase == Finished })
	if far := end.Racers[1]; far.Score != heard.Racers[1].Score || far.Place == 0 || end.Lost {
		t.Fatalf("the far racer at the end: %+v (last heard at %d points), race lost %v", far, heard.Racers[1].Score, end.Lost)
	}
	entry, ok := nodes[0].store.recordedEntry(gp.ID())
	if !ok || entry.Score != heard.Racers[1].Score {
		t.Fatalf("the far racer's stored entry: %+v, %v; want %d points", entry, ok, heard.Racers[1].Score)
	}
}
