package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/ssh2048/ssh2048/migrations"
	"github.com/ssh2048/ssh2048/store"
)

// setFoldAfter sets how long moves wait in s's log, on the writer's goroutine.
func setFoldAfter(t testing.TB, s *Store, d time.Duration) {
	t.Helper()
	onWriter(t, s, func() { s.mlog.foldAfter = d })
}

// onWriter runs fn on s's writer's goroutine, between two groups' writes.
func onWriter(t testing.TB, s *Store, fn func()) {
	t.Helper()
	if err := s.w.do(context.Background(), func(context.Context, *sql.Tx, int64) error {
		fn()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// storedRow is what game id's row holds of its moves: their count, the
// digits in its chunks and tail, its snapshot.
type storedRow struct {
	moves   int
	digits  int
	score   int
	board   string
	logRows int // its rows in move_log, folded or not
}

func readRow(t *testing.T, s *Store, id int64) storedRow {
	t.Helper()
	var r storedRow
	if err := s.read.QueryRow(`SELECT g.moves, `+foldedMoves+`, g.score, g.board, (SELECT count(*) FROM move_log l WHERE l.game_id = g.id)
		FROM games g WHERE g.id = ?`, id).Scan(&r.moves, &r.digits, &r.score, &r.board, &r.logRows); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMoveLogFoldsIntoTheGame: a move is a row of the log and leaves its
// game's row alone until it is due; then a group folds the game's moves
// into its row (more than a chunk of them at once), with the snapshot of
// the last. A process's rows are a ring: a move that would write over one
// not folded yet folds its game first, and the log never holds more
// rows of a process than its ring.
func TestMoveLogFoldsIntoTheGame(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	setFoldAfter(t, s, time.Hour)
	onWriter(t, s, func() { s.mlog.ringSize = 1024 })
	p := addPlayer(t, s, "folder")
	g, err := s.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(20, 20))
	for range 150 {
		if err := playMove(ctx, s, g, rng); err != nil {
			t.Fatal(err)
		}
	}
	if r := readRow(t, s, g.ID); r.moves != 0 || r.digits != 0 || r.logRows != 150 {
		t.Fatalf("before the fold: the row has %d moves (%d digits), the log %d rows; want 0, 0, 150", r.moves, r.digits, r.logRows)
	}
	if n := countMoves(t, s, g.ID); n != 150 {
		t.Fatalf("%d moves stored, want 150", n)
	}
	after150 := store.StateOf(g.Engine)

	// Due now: the next group folds the game first, then logs its move.
	setFoldAfter(t, s, 0)
	if err := playMove(ctx, s, g, rng); err != nil {
		t.Fatal(err)
	}
	r := readRow(t, s, g.ID)
	if r.moves != 150 || r.digits != 150 || r.score != after150.Score || r.board != after150.Board {
		t.Fatalf("after the fold the row holds %d moves (%d digits), score %d, board %q; want 150, 150, %d, %q",
			r.moves, r.digits, r.score, r.board, after150.Score, after150.Board)
	}
	var chunks int
	if err := s.read.QueryRow(`SELECT count(*) FROM move_chunks WHERE game_id = ?`, g.ID).Scan(&chunks); err != nil || chunks != 150/store.ChunkLen {
		t.Fatalf("%d chunks (%v), want %d", chunks, err, 150/store.ChunkLen)
	}

	// Not due again for long, in a smaller ring (which covers the slots
	// used so far): the ring's filling folds the game.
	const ring = 256
	setFoldAfter(t, s, time.Hour)
	onWriter(t, s, func() { s.mlog.ringSize = ring })
	for range 3 * ring {
		if err := playMove(ctx, s, g, rng); err != nil {
			t.Fatal(err)
		}
	}
	var rows, unfolded int
	if err := s.read.QueryRow(`SELECT count(*), coalesce(sum(seq >= (SELECT moves FROM games WHERE id = game_id)), 0) FROM move_log`).
		Scan(&rows, &unfolded); err != nil {
		t.Fatal(err)
	}
	if r := readRow(t, s, g.ID); rows > ring || r.moves+unfolded != g.Engine.Moves() || r.moves < g.Engine.Moves()-ring {
		t.Errorf("after %d moves through a ring of %d: the log has %d rows (%d not folded), the row %d moves; want at most %d rows, the rest in the row",
			g.Engine.Moves(), ring, rows, unfolded, r.moves, ring)
	}
	full, err := s.FullGame(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if full.Moves != g.Engine.Moves() || len(full.Dirs) != g.Engine.Moves() || full.Board != g.Engine.Board().String() {
		t.Errorf("FullGame: %d moves, %d directions, board %q; want %d, and %q", full.Moves, len(full.Dirs), full.Board, g.Engine.Moves(), g.Engine.Board().String())
	}
}

// crash stops s's writer without folding its log or offering its bests:
// what kill -9 leaves on the file.
func crash(t *testing.T, s *Store) {
	t.Helper()
	s.w.close()
	t.Cleanup(func() { s.Close() })
}

// TestMoveLogReplayedAfterACrash: moves left in the log by a process that
// stopped without folding them are folded by the next Open, by replay:
// every game has all its moves and the snapshot of the last, and plays on.
func TestMoveLogReplayedAfterACrash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	crashed, err := Open(ctx, dir, WithLogger(quiet), WithBestsEvery(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	setFoldAfter(t, crashed, time.Hour)
	p := addPlayer(t, crashed, "crasher")
	rng := rand.New(rand.NewPCG(21, 21))
	var games []*store.SavedGame
	for _, size := range []int{4, 8} {
		g, err := crashed.LoadOrCreateGame(ctx, p.ID, size, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 90; i++ {
			if err := playMove(ctx, crashed, g, rng); err != nil {
				break // a 4×4 game may end
			}
		}
		games = append(games, g)
	}
	crash(t, crashed)

	var logged logBuffer
	next, err := Open(ctx, dir, WithLogger(logged.logger()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { next.Close() })
	var left int
	if err := next.read.QueryRow(`SELECT count(*) FROM move_log`).Scan(&left); err != nil || left != 0 {
		t.Errorf("the log holds %d rows after Open (%v), want none", left, err)
	}
	for _, g := range games {
		want := store.StateOf(g.Engine)
		r := readRow(t, next, g.ID)
		if r.moves != want.Moves || r.digits != want.Moves || r.score != want.Score || r.board != want.Board {
			t.Errorf("game %d after the crash: %d moves (%d digits), score %d, board %q; want %d, %d, %q",
				g.ID, r.moves, r.digits, r.score, r.board, want.Moves, want.Score, want.Board)
		}
		again, err := next.LoadOrCreateGame(ctx, p.ID, g.Size, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		if again.ID != g.ID || again.Engine.Moves() != want.Moves {
			t.Errorf("loaded again: game %d with %d moves, want game %d with %d", again.ID, again.Engine.Moves(), g.ID, want.Moves)
		}
	}
	if strings.Contains(logged.String(), "REPLAY MISMATCH") {
		t.Errorf("a replayed game's snapshot disagrees with its moves:\n%s", logged.String())
	}
}

// rawWriteDB opens the store's file for writing on one connection of its
// own, which runs none of the store's code.
func rawWriteDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", dsn(filepath.Join(dir, FileName), false, "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// TestMoveLogOfAnotherProcess: a game claimed from another process that
// logged moves of it and has not folded them gets them by replay; the
// other process's next move is refused, and its fold at Close changes
// nothing.
func TestMoveLogOfAnotherProcess(t *testing.T) {
	ctx := context.Background()
	server := openStore(t)
	setFoldAfter(t, server, time.Hour)
	local, err := Open(ctx, server.Path()[:len(server.Path())-len(FileName)-1], WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	p := addPlayer(t, server, "two")
	g, err := server.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(22, 22))
	move := func(s *Store, g *store.SavedGame) error { return playFencedMove(ctx, s, g, rng) }
	for range 70 {
		if err := move(server, g); err != nil {
			t.Fatal(err)
		}
	}
	theirs, err := local.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if theirs.Engine.Moves() != 70 || theirs.Engine.Board() != g.Engine.Board() {
		t.Fatalf("the other process loads %d moves, board %v; want 70, %v", theirs.Engine.Moves(), theirs.Engine.Board(), g.Engine.Board())
	}
	if err := move(server, g); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("the first process's move after the claim: %v, want store.ErrFenced", err)
	}
	for range 10 {
		if err := move(local, theirs); err != nil {
			t.Fatal(err)
		}
	}
	if err := server.Close(); err != nil {
		t.Fatal(err)
	}
	full, err := local.FullGame(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if full.Moves != 80 || len(full.Dirs) != 80 || full.Board != theirs.Engine.Board().String() {
		t.Errorf("the game holds %d moves (%d directions), board %q; want 80, %q", full.Moves, len(full.Dirs), full.Board, theirs.Engine.Board().String())
	}
}

// TestMoveLogSurvivesFailedGroups: groups that fail after their moves were
// logged are rolled back and their writes run again one by one; what the
// store keeps in memory of the log follows the rollback, so every move
// acknowledged is stored once, in order, and the games play on.
func TestMoveLogSurvivesFailedGroups(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	setFoldAfter(t, s, 20*time.Millisecond)
	const players, moves = 12, 40
	boom := errors.New("boom")
	stop := make(chan struct{})
	var failing sync.WaitGroup
	failing.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx, now int64) error {
				if _, err := tx.Exec(`INSERT INTO server_secrets (name, value) VALUES (?, randomblob(32))`, fmt.Sprintf("boom-%d", i)); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Errorf("the failing write: %v", err)
				return
			}
		}
	})
	games := make([]*store.SavedGame, players)
	var wg sync.WaitGroup
	for i := range players {
		p := addPlayer(t, s, fmt.Sprintf("p%d", i))
		g, err := s.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		games[i] = g
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 23))
			for range moves {
				if err := playMove(ctx, s, g, rng); err != nil {
					t.Errorf("game %d: %v", g.ID, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	failing.Wait()
	for _, g := range games {
		full, err := s.FullGame(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		replayed, err := full.Generator.Replay(full.Size, full.Seed, full.Dirs)
		if err != nil {
			t.Fatal(err)
		}
		if len(full.Dirs) != moves || full.Moves != moves || replayed.Board() != g.Engine.Board() || full.Board != g.Engine.Board().String() {
			t.Errorf("game %d holds %d moves (%d directions) and board %q, replayed %v; want %d and %v",
				g.ID, full.Moves, len(full.Dirs), full.Board, replayed.Board(), moves, g.Engine.Board())
		}
	}
}

// TestMoveLogMigrationDown: going below 00020 with moves still in the log
// (a process was killed) is refused, naming the fix; once a store has
// opened and closed the file, it goes down with every move in its game.
func TestMoveLogMigrationDown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	setFoldAfter(t, s, time.Hour)
	p := addPlayer(t, s, "down")
	g := playScoring(t, s, p.ID, 30, rand.New(rand.NewPCG(24, 24)))
	crash(t, s)

	db := rawWriteDB(t, dir)
	pr, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.SQLite, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.DownTo(ctx, 19); err == nil || !strings.Contains(err.Error(), "open_the_database_once_to_fold_its_move_log") {
		t.Fatalf("down with moves in the log: %v, want the log's check to refuse", err)
	}
	again, err := Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := pr.DownTo(ctx, 19); err != nil {
		t.Fatalf("down after an open: %v", err)
	}
	var moves int
	var tail string
	if err := db.QueryRow(`SELECT moves, tail FROM games WHERE id = ?`, g.ID).Scan(&moves, &tail); err != nil || moves != g.Engine.Moves() || len(tail) != moves%store.ChunkLen {
		t.Errorf("after Down the game has %d moves and a tail of %d (%v); want %d and %d", moves, len(tail), err, g.Engine.Moves(), g.Engine.Moves()%store.ChunkLen)
	}
	if tableExists(t, db, "move_log") {
		t.Error("move_log is still there after Down")
	}
	if _, err := pr.UpTo(ctx, 20); err != nil {
		t.Fatal(err)
	}
}

// TestMoveLogUndo: a transaction's changes to the memory of the log are
// undone by its rollback, a fold's included, and kept by its commit.
func TestMoveLogUndo(t *testing.T) {
	l := newMoveLog(nil)
	st := func(score int) store.MoveState { return store.MoveState{Score: score, Moves: 1} }
	l.begin()
	l.appended(1, 0, '0', st(0), 10)
	l.commit()
	copyOf := func() map[int64]loggedGame {
		m := map[int64]loggedGame{}
		for id, g := range l.games {
			c := *g
			c.digits = slices.Clone(g.digits)
			m[id] = c
		}
		return m
	}
	before, order, head, next := copyOf(), slices.Clone(l.order), l.head, l.next

	l.begin()
	l.appended(1, 1, '1', st(4), 20)
	l.appended(2, 7, '3', st(8), 21)
	l.remember(1) // what fold does once its update has run
	delete(l.games, 1)
	if _, ok := l.front(); !ok {
		t.Fatal("game 2 is logged, yet the log has no front")
	}
	l.rollback()
	if got := copyOf(); fmt.Sprint(got) != fmt.Sprint(before) || !slices.Equal(l.order, order) || l.head != head || l.next != next {
		t.Errorf("after rollback: %v, order %v from %d, next %d; want %v, %v from %d, next %d", got, l.order, l.head, l.next, before, order, head, next)
	}
	if st, ok := l.latest(1); !ok || st.Score != 0 {
		t.Errorf("the committed view has game 1 at %+v (%v), want its first move's state", st, ok)
	}

	l.begin()
	l.appended(1, 1, '1', st(4), 20)
	l.commit()
	if g := l.games[1]; g == nil || string(g.digits) != "01" || g.reachedAt != 20 || g.base != 0 {
		t.Errorf("after commit game 1 is %+v, want digits 01 from move 0, score reached at 20", g)
	}
	if st, ok := l.latest(1); !ok || st.Score != 4 {
		t.Errorf("the committed view has game 1 at %+v (%v), want score 4", st, ok)
	}
}
