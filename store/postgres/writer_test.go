package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
)

// roundTrips records what each round trip of a connection sent: a query
// alone, or a batch (its statements in order).
type roundTrips struct {
	mu   sync.Mutex
	sent [][]string
}

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if batchOf(ctx) {
		return ctx // a statement of the batch being sent, recorded with it
	}
	r.mu.Lock()
	r.sent = append(r.sent, []string{d.SQL})
	r.mu.Unlock()
	return ctx
}

func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

type inBatch struct{}

func batchOf(ctx context.Context) bool { return ctx.Value(inBatch{}) != nil }

func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var sqls []string
	for _, q := range d.Batch.QueuedQueries {
		sqls = append(sqls, q.SQL)
	}
	r.mu.Lock()
	r.sent = append(r.sent, sqls)
	r.mu.Unlock()
	return context.WithValue(ctx, inBatch{}, true)
}

func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// since returns what was sent from round trip n on.
func (r *roundTrips) since(n int) [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]string(nil), r.sent[n:]...)
}

func (r *roundTrips) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sent)
}

// TestAGroupOfMovesIsOneRoundTrip: a group of moves costs the writer's
// connection one round trip, BEGIN, the moves and COMMIT sent together,
// whether the group holds one move or many of distinct games; and a
// group whose writes sent nothing sends nothing, not even BEGIN and
// COMMIT.
func TestAGroupOfMovesIsOneRoundTrip(t *testing.T) {
	ctx := context.Background()
	trips := &roundTrips{}
	s := openTraced(t, postgres.WithWriterTracer(trips))
	const games = 8
	gs := make([]*store.SavedGame, games)
	for i := range gs {
		p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:trips-%d", i), "ssh-ed25519", "trips")
		if err != nil {
			t.Fatal(err)
		}
		if gs[i], err = s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman); err != nil {
			t.Fatal(err)
		}
	}
	move := func(g *store.SavedGame) error {
		d, _ := someMove(g.Engine)
		g.Engine.Move(d)
		st := store.StateOf(g.Engine)
		st.Fence = g.Fence
		return s.AppendMove(ctx, g.ID, g.Engine.Moves()-1, d, st)
	}
	wantOneTrip := func(what string, sent []string) {
		t.Helper()
		if len(sent) != 3 || sent[0] != "begin" || !strings.Contains(sent[1], "INSERT INTO move_chunks") || sent[2] != "commit" {
			t.Errorf("%s: sent %q, want BEGIN, the moves and COMMIT at once", what, sent)
		}
	}
	from := trips.count()
	if err := move(gs[0]); err != nil {
		t.Fatal(err)
	}
	sent := trips.since(from)
	if len(sent) != 1 {
		t.Fatalf("one move: %d round trips, want 1: %q", len(sent), sent)
	}
	wantOneTrip("one move", sent[0])

	// A job that holds the writer, sending nothing, while the moves
	// queue behind it: they make the next group.
	hold, holding := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	from = trips.count()
	go func() {
		held <- postgres.Write(s, ctx, func(context.Context, pgx.Tx, int64) error { close(holding); <-hold; return nil })
	}()
	<-holding
	errs := make([]error, games)
	var wg sync.WaitGroup
	for i, g := range gs {
		wg.Go(func() { errs[i] = move(g) })
	}
	time.Sleep(50 * time.Millisecond)
	close(hold)
	wg.Wait()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("game %d's move: %v", i, err)
		}
	}
	// However the moves fell into groups, each group is one round trip,
	// and the job that sent nothing sent nothing.
	sent = trips.since(from)
	if len(sent) == 0 {
		t.Fatalf("%d moves sent nothing", games)
	}
	for i, trip := range sent {
		wantOneTrip(fmt.Sprintf("%d moves queued together, round trip %d", games, i+1), trip)
	}
	for _, g := range gs {
		var stored int
		if err := s.Pool().QueryRow(ctx, `SELECT moves FROM games WHERE id = $1`, g.ID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored != g.Engine.Moves() {
			t.Errorf("game %d: %d moves stored, want %d", g.ID, stored, g.Engine.Moves())
		}
	}
}

// TestGroupOfMovesFindsItsGamesByKey: the statement of a group's moves,
// planned on the writer's connection as its prepared statement is after
// a few runs (a generic plan), on tables autovacuum has not analysed
// yet, finds its games and their holders by primary key, one probe a
// move: not by reading every game in progress or every holder into a
// hash, whose cost grew with the players and with every version of
// their games not yet vacuumed.
func TestGroupOfMovesFindsItsGamesByKey(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, pgtest.Database(t))
	const games = 300
	ids := make([]int64, 0, games)
	for i := range games {
		p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:plan-%d", i), "ssh-ed25519", "plan")
		if err != nil {
			t.Fatal(err)
		}
		g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, g.ID)
	}
	var plan []string
	err := postgres.Write(s, ctx, func(ctx context.Context, tx pgx.Tx, _ int64) error {
		if _, err := tx.Exec(ctx, "PREPARE group_of_moves AS "+postgres.AppendMovesSQL); err != nil {
			return err
		}
		defer tx.Exec(ctx, "DEALLOCATE group_of_moves")
		if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, fmt.Sprintf(`EXPLAIN (COSTS OFF) EXECUTE group_of_moves('{%d,%d,%d}', '{4,4,4}', '{4,4,4}', '{1,1,1}',
			'{f,f,f}', '{b,b,b}', '{1,2,3}', '{0,0,0}', '{0,0,0}', '{0,0,0}')`, ids[100], ids[101], ids[102]))
		if err != nil {
			return err
		}
		plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(plan, "\n")
	for _, want := range []string{"Index Scan using games_pkey", "Index Scan using game_holders_pkey"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the plan of a group's moves:\n%s", want, text)
		}
	}
	// A join by filter (a nested loop over every row of the other side)
	// made a group of n moves cost n² comparisons.
	for _, bad := range []string{"Seq Scan", "Hash Join", "Join Filter", "games_in_progress"} {
		if strings.Contains(text, bad) {
			t.Errorf("%q in the plan of a group's moves:\n%s", bad, text)
		}
	}
}

// TestLoginDoesNotHoldUpMoves: a login that waits (here for its key's row,
// which another transaction holds) does not delay the moves of players
// already in: logins have a writer of their own.
func TestLoginDoesNotHoldUpMoves(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, pgtest.Database(t))
	const waiterKey = "SHA256:waiter-fingerprint"
	if _, err := s.UpsertPlayer(ctx, waiterKey, "ssh-ed25519", "waiter"); err != nil {
		t.Fatal(err)
	}
	mover, err := s.UpsertPlayer(ctx, "SHA256:mover-fingerprint", "ssh-ed25519", "mover")
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.LoadOrCreateGame(ctx, mover.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}

	holder, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx)
	if _, err := holder.Exec(ctx, `SELECT 1 FROM player_keys WHERE fingerprint = $1 FOR UPDATE`, waiterKey); err != nil {
		t.Fatal(err)
	}
	login := make(chan error, 1)
	go func() {
		_, err := s.UpsertPlayer(ctx, waiterKey, "ssh-ed25519", "waiter")
		login <- err
	}()
	for waiting := 0; waiting == 0; time.Sleep(5 * time.Millisecond) {
		if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}

	// Without a writer of their own, the move would queue behind the
	// login until the lock is let go, which here is never.
	moveCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d := engine.Direction(0)
	for b := g.Engine.Board(); ; d++ {
		if _, moved := b.Move(d); moved {
			break
		}
	}
	g.Engine.Move(d)
	if err := s.AppendMove(moveCtx, g.ID, 0, d, store.StateOf(g.Engine)); err != nil {
		t.Fatalf("a move while a login waited: %v", err)
	}
	select {
	case err := <-login:
		t.Fatalf("the login ended while its key's row was held: %v", err)
	default:
	}
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-login; err != nil {
		t.Fatal(err)
	}
}
