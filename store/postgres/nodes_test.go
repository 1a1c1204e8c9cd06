package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
)

// node is one ssh2048 node of a test: its store and its game service.
type node struct {
	store *postgres.Store
	games *game.Service
}

// startNode opens a node on url, closed when the test ends.
func startNode(tb testing.TB, url, name string, opts ...postgres.Option) node {
	tb.Helper()
	s, err := postgres.Open(context.Background(), url, append([]postgres.Option{postgres.WithLogger(quiet), postgres.WithNode(name)}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	select {
	case <-s.Bus().Listening():
	case <-time.After(10 * time.Second):
		tb.Fatal("the node's bus is not listening after 10 s")
	}
	return node{s, game.New(s, quiet, game.WithBus(s.Bus()))}
}

func TestTakeoverTopicIsTheGameService(t *testing.T) {
	if postgres.TopicTakeover != game.TopicTakeover {
		t.Fatalf("pg announces takeovers on %q, the game service listens on %q", postgres.TopicTakeover, game.TopicTakeover)
	}
}

// TestStaleTokenIsRefusedByTheDatabase: two nodes load one game; the
// first node's token is refused by the database even when its sequence
// number is right, before and after the second node moves.
func TestStaleTokenIsRefusedByTheDatabase(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	a, b := startNode(t, url, "a").store, startNode(t, url, "b").store
	p := newPlayer(t, a, "fenced")
	ga, gb := openGame(t, a, p.ID), openGame(t, b, p.ID)
	if gb.ID != ga.ID || gb.Fence <= ga.Fence {
		t.Fatalf("second load: game %d token %d, after game %d token %d", gb.ID, gb.Fence, ga.ID, ga.Fence)
	}
	// move plays on g's engine, kept even when the store refuses it: A's
	// second try below has the sequence number the database expects, so
	// only the token can refuse it.
	move := func(s *postgres.Store, g *store.SavedGame) error {
		d, _ := someMove(g.Engine)
		g.Engine.Move(d)
		st := store.StateOf(g.Engine)
		st.Fence = g.Fence
		return s.AppendMove(ctx, g.ID, g.Engine.Moves()-1, d, st)
	}
	if err := move(a, ga); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("move with the first token after the second load: %v, want ErrFenced", err)
	}
	if err := move(b, gb); err != nil {
		t.Fatal(err)
	}
	if err := move(a, ga); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("stale node's move: %v, want ErrFenced", err)
	}
	st := store.StateOf(gb.Engine)
	st.Fence = ga.Fence
	if err := a.EndGame(ctx, ga.ID, st); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("stale node's EndGame: %v, want ErrFenced", err)
	}
}

// TestNodesOpenOneNewGameAtOnce: a new player's first session reaches
// several nodes at once (a reconnect through the balancer, say). One game
// is created, every node opens that one, each with a token of its own,
// and the last claim's is the game's.
func TestNodesOpenOneNewGameAtOnce(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	const n = 4
	nodes := make([]*postgres.Store, n)
	for i := range nodes {
		nodes[i] = startNode(t, url, fmt.Sprintf("n%d", i)).store
	}
	p := newPlayer(t, nodes[0], "atonce")
	games := make([]*store.SavedGame, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, s := range nodes {
		wg.Go(func() { games[i], errs[i] = s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman) })
	}
	wg.Wait()
	tokens := map[int64]bool{}
	var last int64
	for i, g := range games {
		if errs[i] != nil {
			t.Fatalf("node %d: %v", i, errs[i])
		}
		if g.ID != games[0].ID {
			t.Errorf("node %d opened game %d, node 0 game %d", i, g.ID, games[0].ID)
		}
		if tokens[g.Fence] {
			t.Errorf("token %d given twice", g.Fence)
		}
		tokens[g.Fence] = true
		last = max(last, g.Fence)
	}
	if _, token, live, err := nodes[0].Holder(ctx, games[0].ID); err != nil || token != last || !live {
		t.Errorf("holder: token %d, live %v (%v); want the last claim's, %d", token, live, err, last)
	}
}

// TestReleasedGameKeepsItsTokens: a token is never given twice. Node A
// loads a game, B takes it over and its session ends (Release), then C
// loads it: C's token is past B's, and A, cut off all along and still
// holding the first token, is refused even with the sequence number the
// database expects.
func TestReleasedGameKeepsItsTokens(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	a, b, c := startNode(t, url, "a").store, startNode(t, url, "b").store, startNode(t, url, "c").store
	p := newPlayer(t, a, "released")
	ga, gb := openGame(t, a, p.ID), openGame(t, b, p.ID)
	if err := b.Release(ctx, gb.ID, gb.Fence); err != nil {
		t.Fatal(err)
	}
	gc := openGame(t, c, p.ID)
	if gc.ID != ga.ID || gc.Fence <= gb.Fence {
		t.Errorf("after a release, game %d was claimed with token %d; B's was %d, A's %d", gc.ID, gc.Fence, gb.Fence, ga.Fence)
	}
	d, _ := someMove(ga.Engine)
	ga.Engine.Move(d)
	st := store.StateOf(ga.Engine)
	st.Fence = ga.Fence
	if err := a.AppendMove(ctx, ga.ID, 0, d, st); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("A's move with the first token, after B released and C claimed: %v, want ErrFenced", err)
	}
}

func someMove(g *engine.Game) (engine.Direction, bool) {
	for _, d := range engine.Directions() {
		b := g.Board()
		if _, moved := b.Move(d); moved {
			return d, true
		}
	}
	return 0, false
}

// TestTakeoverAcrossNodes: a player's game moves from a session on node A
// to one on node B while A keeps moving as fast as it can. A's session is
// told at once (the bus), every move A had answered is in B's game, no
// move is applied twice, and A's moves after the claim are all refused.
func TestTakeoverAcrossNodes(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	a, b := startNode(t, url, "a"), startNode(t, url, "b")
	who, err := a.games.Identify(ctx, "SHA256:traveller", "ssh-ed25519", "traveller")
	if err != nil {
		t.Fatal(err)
	}
	told := make(chan struct{}, 1)
	seatA := a.games.Seat(who, func(error) { told <- struct{}{} })
	defer seatA.Close()
	playA, err := seatA.Resume(ctx, 8, false)
	if err != nil {
		t.Fatal(err)
	}
	answered := make(chan int, 1)
	go func() { // A plays until refused
		n, rng := 0, rand.New(rand.NewPCG(1, 2))
		for {
			if _, err := playA.Move(ctx, engine.Direction(rng.IntN(4))); err != nil {
				if !errors.Is(err, game.ErrTakenOver) {
					t.Errorf("A's move: %v, want ErrTakenOver", err)
				}
				answered <- playA.Moves() // a refused move is not the game's, in memory either
				return
			}
			n++
		}
	}()
	time.Sleep(300 * time.Millisecond)
	seatB := b.games.Seat(who, nil)
	defer seatB.Close()
	playB, err := seatB.Resume(ctx, 8, false)
	if err != nil {
		t.Fatal(err)
	}
	claimed := time.Now()
	select {
	case <-told:
		t.Logf("A was told %v after B's claim", time.Since(claimed).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Fatal("A's session was not told of the takeover within 5 s")
	}
	aMoves := <-answered
	if playB.ID() != playA.ID() || playB.Moves() < aMoves-1 || playB.Moves() > aMoves {
		t.Fatalf("B resumed game %d at %d moves; A had game %d with %d answered (at most one more refused)", playB.ID(), playB.Moves(), playA.ID(), aMoves)
	}
	if playB.Moves() != aMoves {
		// A's last answered move can only be missing if A's answer came
		// after B's load, which the fence forbids.
		t.Fatalf("B resumed at %d moves, A had %d answered", playB.Moves(), aMoves)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for playB.Moves() < aMoves+20 {
		if _, err := playB.Move(ctx, engine.Direction(rng.IntN(4))); err != nil {
			t.Fatal(err)
		}
	}
	full, err := b.store.FullGame(ctx, playB.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Dirs) != playB.Moves() || full.Moves != playB.Moves() {
		t.Fatalf("stored %d moves (snapshot %d), B has played to %d", len(full.Dirs), full.Moves, playB.Moves())
	}
	replayed, err := full.Generator.Replay(full.Size, full.Seed, full.Dirs)
	if err != nil || replayed.Board() != playB.Board() {
		t.Fatalf("the stored moves replay to %v (%v), B shows %v", replayed.Board(), err, playB.Board())
	}
}

// TestDeadNodeLocksNothing: a node that dies holding a game (its store
// closed without its sessions giving anything up) blocks no one: another
// node takes the game at once, and the dead node's lease runs out.
func TestDeadNodeLocksNothing(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	dead := startNode(t, url, "dead", postgres.WithLease(time.Second))
	who, err := dead.games.Identify(ctx, "SHA256:orphan", "ssh-ed25519", "orphan")
	if err != nil {
		t.Fatal(err)
	}
	p, err := dead.games.Seat(who, nil).Resume(ctx, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Move(ctx, engine.Left); err != nil && !errors.Is(err, game.ErrOver) {
		t.Fatal(err)
	}
	dead.store.Close() // no Seat.Close: the node is gone

	alive := startNode(t, url, "alive")
	if node, _, live, err := alive.store.Holder(ctx, p.ID()); err != nil || node != "dead" {
		t.Fatalf("holder %q (%v), want the dead node", node, err)
	} else {
		t.Logf("right after the death the lease is live: %v", live)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		_, _, live, err := alive.store.Holder(ctx, p.ID())
		if err != nil {
			t.Fatal(err)
		}
		if !live {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the dead node's 1 s lease is still live after 3 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	start := time.Now()
	q, err := alive.games.Seat(who, nil).Resume(ctx, 4, false)
	if err != nil || q.ID() != p.ID() || q.Moves() != p.Moves() {
		t.Fatalf("the other node resumes game %d at %d moves (%v), want %d at %d", q.ID(), q.Moves(), err, p.ID(), p.Moves())
	}
	t.Logf("taken over in %v", time.Since(start).Round(time.Millisecond))
	if node, _, live, _ := alive.store.Holder(ctx, p.ID()); node != "alive" || !live {
		t.Fatalf("holder %q live %v after the takeover", node, live)
	}
}

// TestIdleSessionIsToldAtOnce: a session on node A that is not moving
// hears of the takeover from node B through the bus (LISTEN/NOTIFY), not
// at its next move.
func TestIdleSessionIsToldAtOnce(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	a, b := startNode(t, url, "a"), startNode(t, url, "b")
	who, err := a.games.Identify(ctx, "SHA256:idle", "ssh-ed25519", "idle")
	if err != nil {
		t.Fatal(err)
	}
	told := make(chan struct{}, 1)
	seatA := a.games.Seat(who, func(error) { told <- struct{}{} })
	defer seatA.Close()
	if _, err := seatA.Resume(ctx, 4, false); err != nil {
		t.Fatal(err)
	}
	seatB := b.games.Seat(who, nil)
	defer seatB.Close()
	if _, err := seatB.Resume(ctx, 4, false); err != nil {
		t.Fatal(err)
	}
	claimed := time.Now()
	select {
	case <-told:
		t.Logf("the idle session on A was told %v after B's claim", time.Since(claimed).Round(100*time.Microsecond))
	case <-time.After(5 * time.Second):
		t.Fatal("the idle session on A was not told within 5 s")
	}
}

// TestSpectatorOnAnotherNode: a spectator on node B finds a player whose
// game is on node A (by name, and in the list of live games), sees the
// stored board at once, then every move A makes, then that the player
// left.
func TestSpectatorOnAnotherNode(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	a, b := startNode(t, url, "a"), startNode(t, url, "b")
	who, err := a.games.Identify(ctx, "SHA256:watched", "ssh-ed25519", "watched")
	if err != nil {
		t.Fatal(err)
	}
	seat := a.games.Seat(who, nil)
	p, err := seat.Resume(ctx, 5, false)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	play := func(n int) {
		t.Helper()
		for target := p.Moves() + n; p.Moves() < target; {
			if _, err := p.Move(ctx, engine.Direction(rng.IntN(4))); err != nil {
				t.Fatal(err)
			}
		}
	}
	play(3)
	live := b.games.Live(5)
	if len(live) != 1 || live[0].GameID != p.ID() || live[0].Moves != 3 || live[0].Player != "watched" {
		t.Fatalf("node B's live games: %+v, want A's game at 3 moves", live)
	}
	w, err := b.games.WatchPlayer(context.Background(), "watched")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	snap, err := w.Next(wctx)
	if err != nil || snap.GameID != p.ID() || snap.Moves != 3 || snap.Board != p.Board() {
		t.Fatalf("first snapshot %+v (%v), want game %d at 3 moves", snap, err, p.ID())
	}
	start := time.Now()
	for snap.Moves < 3 {
		if snap, err = w.Next(wctx); err != nil {
			t.Fatal(err)
		}
	}
	// The watch request reaches A asynchronously; the moves from then on
	// must all show, up to the last.
	time.Sleep(200 * time.Millisecond)
	play(10)
	for snap.Moves < p.Moves() {
		if snap, err = w.Next(wctx); err != nil {
			t.Fatalf("spectator on B stuck at %d moves, A is at %d: %v", snap.Moves, p.Moves(), err)
		}
	}
	if snap.Board != p.Board() || snap.Score != p.Score() || snap.Status != game.Live {
		t.Fatalf("spectator on B shows %+v, A shows board %v score %d", snap, p.Board(), p.Score())
	}
	t.Logf("B followed A's 10 moves in %v", time.Since(start).Round(time.Millisecond))
	seat.Close()
	left := time.Now()
	for snap.Status != game.Left {
		if snap, err = w.Next(wctx); err != nil {
			t.Fatalf("spectator on B not told the player left: %v", err)
		}
	}
	t.Logf("told the player left after %v", time.Since(left).Round(time.Millisecond))
}

// TestDailySeedIsTheSameOnEveryNode: the daily challenge's seed comes
// from a secret kept in the database, so two nodes deal the same tiles,
// and a player's one attempt a day counts on every node.
func TestDailySeedIsTheSameOnEveryNode(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	a, b := startNode(t, url, "a"), startNode(t, url, "b")
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02")
	sa, err := a.games.DailySeed(ctx, yesterday, 4)
	if err != nil {
		t.Fatal(err)
	}
	if sb, err := b.games.DailySeed(ctx, yesterday, 4); err != nil || sb != sa {
		t.Fatalf("node B's seed %d (%v), node A's %d", sb, err, sa)
	}
	who, err := a.games.Identify(ctx, "SHA256:daily", "ssh-ed25519", "daily")
	if err != nil {
		t.Fatal(err)
	}
	pa, err := a.games.Seat(who, nil).OpenDaily(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := b.games.Seat(who, nil).OpenDaily(ctx, 4)
	if err != nil || pb.ID() != pa.ID() || pb.Board() != pa.Board() {
		t.Fatalf("today's challenge on B: %v, game %d; on A game %d", err, pb.ID(), pa.ID())
	}
}

// TestTodaysDailyIsNotShownOnAnotherNode: a game of today's daily
// challenge is neither listed, watched by id nor watched by its player's
// name from another node, as on its own (ErrDailyOn); the player's free
// game beside it is.
func TestTodaysDailyIsNotShownOnAnotherNode(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	a, b := startNode(t, url, "a"), startNode(t, url, "b")
	who, err := a.games.Identify(ctx, "SHA256:secretive", "ssh-ed25519", "secretive")
	if err != nil {
		t.Fatal(err)
	}
	seat := a.games.Seat(who, nil)
	defer seat.Close()
	daily, err := seat.OpenDaily(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range engine.Directions() {
		if _, err := daily.Move(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if live := b.games.Live(0); len(live) != 0 {
		t.Fatalf("node B lists today's daily game: %+v", live)
	}
	if _, err := b.games.Watch(context.Background(), daily.ID()); !errors.Is(err, game.ErrDailyOn) {
		t.Fatalf("node B watches today's daily game by id: %v, want ErrDailyOn", err)
	}
	if _, err := b.games.WatchPlayer(context.Background(), "secretive"); !errors.Is(err, game.ErrDailyOn) {
		t.Fatalf("node B watches the daily's player: %v, want ErrDailyOn", err)
	}
	if _, ok := b.games.Playing("secretive"); ok {
		t.Fatal("node B says the daily's player is playing a game to watch")
	}
	// The same player's free game, beside it, is shown.
	free, err := seat.Resume(ctx, 5, false)
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.games.WatchPlayer(context.Background(), "secretive")
	if err != nil {
		t.Fatalf("node B watches the player's free game: %v", err)
	}
	defer w.Close()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if snap, err := w.Next(wctx); err != nil || snap.GameID != free.ID() {
		t.Fatalf("node B shows game %d (%v), want the free game %d", snap.GameID, err, free.ID())
	}
	if live := b.games.Live(0); len(live) != 1 || live[0].GameID != free.ID() {
		t.Fatalf("node B's live games: %+v, want the free game alone", live)
	}
}

// TestNodeReconnectsAfterPostgreSQLRestarts: PostgreSQL stops under a
// node and comes back; writes fail while it is away (never a false
// success), then the writer, the read pool and the bus's LISTEN
// connection are back by themselves, with no restart of the node.
func TestNodeReconnectsAfterPostgreSQLRestarts(t *testing.T) {
	ctx := context.Background()
	srv, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close) // after the database's and the node's clean-ups
	n := startNode(t, srv.Database(t), "survivor")
	p, err := n.store.UpsertPlayer(ctx, "SHA256:survivor", "ssh-ed25519", "survivor")
	if err != nil {
		t.Fatal(err)
	}
	g, err := n.store.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	move := func() error {
		d, _ := someMove(g.Engine)
		g.Engine.Move(d)
		st := store.StateOf(g.Engine)
		st.Fence = g.Fence
		return n.store.AppendMove(ctx, g.ID, g.Engine.Moves()-1, d, st)
	}
	if err := move(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := move(); err == nil {
		t.Fatal("a move was acknowledged with PostgreSQL stopped")
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	// The move the store refused is not stored: reload to where it is.
	deadline := time.Now().Add(20 * time.Second)
	for {
		g, err = n.store.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the node does not read again 20 s after PostgreSQL came back: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if g.Engine.Moves() != 1 {
		t.Fatalf("after the restart the game has %d moves, want the 1 acknowledged", g.Engine.Moves())
	}
	if err := move(); err != nil {
		t.Fatalf("a move after PostgreSQL came back: %v", err)
	}
	got := make(chan string, 1)
	n.store.Bus().Subscribe("ping", func(b []byte) {
		select {
		case got <- string(b):
		default:
		}
	})
	for {
		select {
		case <-n.store.Bus().Listening():
		case <-time.After(time.Until(deadline)):
			t.Fatal("the bus does not listen again 20 s after PostgreSQL came back")
		}
		if err := n.store.Bus().Publish(ctx, "ping", []byte("back")); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-got:
			if m != "back" {
				t.Fatalf("bus message %q", m)
			}
			return
		case <-time.After(time.Second):
			// The channel of the old connection may still read as open;
			// the loop notices the loss within a second.
		}
		if time.Now().After(deadline) {
			t.Fatal("the bus delivers nothing 20 s after PostgreSQL came back")
		}
	}
}

// TestStaleMoveInAGroupIsRefusedAlone: moves of many games reach one
// node's writer together, so that their statements go to the database in
// one group (writer.go sends a group's moves at once); one of the games
// was taken over by another node. That game's move is refused with
// store.ErrFenced and not stored, and every other move of the group is
// acknowledged and stored.
func TestStaleMoveInAGroupIsRefusedAlone(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	a, b := startNode(t, url, "a").store, startNode(t, url, "b").store
	const games = 24
	gs := make([]*store.SavedGame, games)
	for i := range gs {
		p, err := a.UpsertPlayer(ctx, fmt.Sprintf("SHA256:group-%d", i), "ssh-ed25519", "group")
		if err != nil {
			t.Fatal(err)
		}
		if gs[i], err = a.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman); err != nil {
			t.Fatal(err)
		}
	}
	const stale = games / 2
	if _, err := b.LoadOrCreateGame(ctx, gs[stale].PlayerID, 4, store.KindHuman); err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		// A job that holds the writer while the moves queue behind it,
		// so that they make one group (they would be right in any).
		hold := make(chan struct{})
		held := make(chan error, 1)
		go func() {
			held <- postgres.Write(a, ctx, func(context.Context, pgx.Tx, int64) error { <-hold; return nil })
		}()
		errs := make([]error, games)
		var wg sync.WaitGroup
		for i, g := range gs {
			wg.Go(func() {
				d, _ := someMove(g.Engine)
				g.Engine.Move(d)
				st := store.StateOf(g.Engine)
				st.Fence = g.Fence
				errs[i] = a.AppendMove(ctx, g.ID, g.Engine.Moves()-1, d, st)
			})
		}
		time.Sleep(50 * time.Millisecond)
		close(hold)
		wg.Wait()
		if err := <-held; err != nil {
			t.Fatal(err)
		}
		for i, err := range errs {
			if i == stale {
				if !errors.Is(err, store.ErrFenced) {
					t.Errorf("round %d: the taken-over game's move: %v, want ErrFenced", round, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("round %d: game %d's move: %v", round, i, err)
			}
		}
	}
	for i, g := range gs {
		var stored int
		if err := a.Pool().QueryRow(ctx, `SELECT 64 * (SELECT count(*) FROM move_chunks WHERE game_id = $1) + length(tail) FROM games WHERE id = $1`, g.ID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		want := 3
		if i == stale {
			want = 0
		}
		if stored != want {
			t.Errorf("game %d: %d moves stored, want %d", i, stored, want)
		}
	}
}

// TestTwoMovesOfOneGameInAGroup: a game's next move reaches the writer
// while its previous one waits in the same group (the moves are then sent
// one statement each, in order, not as one statement over arrays). Each
// move answered nil is stored, each refused one is not, and a move that
// follows its predecessor in the group is applied after it.
func TestTwoMovesOfOneGameInAGroup(t *testing.T) {
	ctx := context.Background()
	s := startNode(t, pgtest.Database(t), "a").store
	p, err := s.UpsertPlayer(ctx, "SHA256:twice", "ssh-ed25519", "twice")
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	// Two successive moves of the game, played ahead on the engine.
	var states [2]store.MoveState
	var dirs [2]engine.Direction
	for i := range states {
		d, _ := someMove(g.Engine)
		g.Engine.Move(d)
		dirs[i], states[i] = d, store.StateOf(g.Engine)
		states[i].Fence = g.Fence
	}
	hold := make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- postgres.Write(s, ctx, func(context.Context, pgx.Tx, int64) error { <-hold; return nil })
	}()
	var errs [2]error
	var wg sync.WaitGroup
	for i := range states {
		wg.Go(func() { errs[i] = s.AppendMove(ctx, g.ID, i, dirs[i], states[i]) })
		time.Sleep(20 * time.Millisecond) // the first queued first, most of the time
	}
	close(hold)
	wg.Wait()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if errs[0] != nil {
		t.Fatalf("first move: %v", errs[0])
	}
	if errs[1] != nil && !errors.Is(errs[1], store.ErrConflict) {
		t.Fatalf("second move: %v, want nil or ErrConflict (queued before the first)", errs[1])
	}
	want := 1
	if errs[1] == nil {
		want = 2
	}
	full, err := s.FullGame(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Dirs) != want || full.Moves != want {
		t.Fatalf("stored %d moves (snapshot %d), want %d", len(full.Dirs), full.Moves, want)
	}
}
