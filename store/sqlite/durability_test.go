package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

const crashChildEnv = "SSH2048_DB_CRASH_CHILD_DIR"

// TestCrashChild is not a test on its own: TestKillDuringWrites runs the
// test binary again with this test selected and crashChildEnv set. It
// plays games in several goroutines forever, printing "ack GAME SEQ" after
// each AppendMove returns and "end GAME" after each EndGame, until killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	if dir == "" {
		t.Skip("helper process for TestKillDuringWrites")
	}
	ctx := context.Background()
	s, say, fail := openChild(ctx, dir)
	for i := range 4 {
		go func() {
			p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:crash-%d", i), "ssh-ed25519", "crash")
			if err != nil {
				fail(err)
			}
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)))
			g, err := s.LoadOrCreateGame(ctx, p.ID, 3+i%2, store.KindHuman) // small boards: games end often
			if err != nil {
				fail(err)
			}
			for {
				if _, ok := movingDirection(g.Engine, rng); !ok {
					if err := s.EndGame(ctx, g.ID, store.StateOf(g.Engine)); err != nil {
						fail(err)
					}
					say("end %d", g.ID)
					if g, err = s.NewGame(ctx, p.ID, g.Size, store.KindHuman); err != nil {
						fail(err)
					}
					continue
				}
				seq := g.Engine.Moves()
				if err := playMove(ctx, s, g, rng); err != nil {
					fail(err)
				}
				say("ack %d %d", g.ID, seq)
			}
		}()
	}
	select {}
}

// openChild opens the store in dir for a child process of these tests,
// and gives it its way to report: say writes a line to stdout, in one
// write(2), and fail says "error ERR" and exits.
func openChild(ctx context.Context, dir string) (s *Store, say func(format string, args ...any), fail func(err error)) {
	var out sync.Mutex
	say = func(format string, args ...any) {
		out.Lock()
		defer out.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", args...) // unbuffered: one write(2) per line
	}
	fail = func(err error) {
		say("error %v", err)
		os.Exit(2)
	}
	s, err := Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		fail(fmt.Errorf("open: %w", err))
	}
	return s, say, fail
}

// TestKillDuringWrites SIGKILLs a child process that is appending moves, at
// a random point, 20 times over one database, reopening it each round:
// every acknowledged move and end must be there, the database must pass
// integrity_check, and every game must replay to its snapshot.
func TestKillDuringWrites(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		t.Skip("in the child")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	type move struct{ game, seq int64 }
	acked := map[move]bool{}
	ended := map[int64]bool{}
	for round := range 20 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		// Most rounds are killed at a random moment after the child starts
		// acknowledging moves; every fourth (the first among them, while
		// the schema is being created) at a random moment from its start,
		// in Open, migrations or the first writes.
		var killAt <-chan time.Time
		early := round%4 == 0
		if early {
			killAt = time.After(time.Duration(rng.IntN(60)) * time.Millisecond)
		}
		timeout := time.After(60 * time.Second)
		roundAcks := 0
	read:
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					break read
				}
				var m move
				var g int64
				switch {
				case strings.HasPrefix(line, "error "):
					t.Fatalf("round %d: child: %s", round, line)
				case strings.HasPrefix(line, "ack "):
					if _, err := fmt.Sscanf(line, "ack %d %d", &m.game, &m.seq); err != nil {
						t.Fatalf("child said %q", line)
					}
					acked[m] = true
					roundAcks++
				case strings.HasPrefix(line, "end "):
					if _, err := fmt.Sscanf(line, "end %d", &g); err != nil {
						t.Fatalf("child said %q", line)
					}
					ended[g] = true
				}
				if roundAcks == 1 && !early {
					killAt = time.After(time.Duration(rng.IntN(150)) * time.Millisecond)
				}
			case <-killAt:
				cmd.Process.Kill() // SIGKILL
				killAt = nil
			case <-timeout:
				cmd.Process.Kill()
				t.Fatalf("round %d: child wrote nothing for a minute", round)
			}
		}
		cmd.Wait()
		if roundAcks == 0 && !early {
			t.Fatalf("round %d: child acknowledged nothing", round)
		}
		checkAfterCrash(t, dir, round, func(check func(game, seq int64) bool, isEnded func(game int64) bool) {
			for m := range acked {
				if !check(m.game, m.seq) {
					t.Errorf("round %d: acknowledged move %d of game %d is missing", round, m.seq, m.game)
				}
			}
			for g := range ended {
				if !isEnded(g) {
					t.Errorf("round %d: acknowledged end of game %d is missing", round, g)
				}
			}
		})
		if t.Failed() {
			return
		}
	}
	t.Logf("%d acknowledged moves and %d ends survived 20 SIGKILLs", len(acked), len(ended))
}

func checkAfterCrash(t *testing.T, dir string, round int, verify func(hasMove func(game, seq int64) bool, isEnded func(game int64) bool)) {
	t.Helper()
	ctx := context.Background()
	var logs logBuffer
	s, err := Open(ctx, dir, WithLogger(logs.logger()))
	if err != nil {
		t.Fatalf("round %d: reopen: %v", round, err)
	}
	defer s.Close()
	var ok string
	if err := s.read.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("round %d: integrity_check = %q, %v", round, ok, err)
	}
	var bad int
	if err := s.read.QueryRow(`
		SELECT count(*) FROM games g
		WHERE g.moves <> ` + foldedMoves).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("round %d: %d games whose move count disagrees with their moves (%v)", round, bad, err)
	}
	verify(func(game, seq int64) bool {
		var n int
		if err := s.read.QueryRow(`SELECT count(*) FROM games g WHERE g.id = ? AND ? < `+storedMoves, game, seq).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}, func(game int64) bool {
		var n int
		if err := s.read.QueryRow(`SELECT count(*) FROM games WHERE id = ? AND ended_at IS NOT NULL`, game).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	})
	rows, err := s.read.Query(`SELECT id FROM games`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		if _, err := s.loadGame(ctx, id); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	if strings.Contains(logs.String(), "MISMATCH") {
		t.Fatalf("round %d: replay mismatch after crash:\n%s", round, logs.String())
	}
}

// TestOtherProcessHoldingTheLockIsWaitedFor: while another connection (a
// backup, the sqlite3 shell) holds the write lock, moves wait instead of
// failing with "database is locked", and reads go on.
func TestOtherProcessHoldingTheLockIsWaitedFor(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := addPlayer(t, s, "patient")
	g, err := s.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite3", dsn(s.Path(), false, "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.Begin() // BEGIN IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	const hold = 300 * time.Millisecond
	released := make(chan struct{})
	go func() {
		time.Sleep(hold)
		tx.Rollback()
		close(released)
	}()
	start := time.Now()
	rng := rand.New(rand.NewPCG(1, 1))
	if _, err := s.Leaderboard(ctx, 8, store.KindHuman, 10); err != nil {
		t.Fatalf("read while another connection holds the write lock: %v", err)
	}
	for range 5 {
		if err := playMove(ctx, s, g, rng); err != nil {
			t.Fatalf("move while another connection holds the write lock: %v", err)
		}
	}
	if waited := time.Since(start); waited < hold-50*time.Millisecond {
		t.Fatalf("moves committed after %v, while the lock was held for %v", waited, hold)
	}
	<-released
	if n := countMoves(t, s, g.ID); n != 5 {
		t.Fatalf("%d moves stored, want 5", n)
	}
}

// TestCloseDuringWrites: Close while sessions are writing. Every write
// either commits (and is there after reopening) or fails with store.ErrClosed.
func TestCloseDuringWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	const sessions = 20
	acked := make([]int, sessions)
	games := make([]int64, sessions)
	var wg sync.WaitGroup
	for i := range sessions {
		p := addPlayer(t, s, fmt.Sprintf("closing%d", i))
		g, err := s.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		games[i] = g.ID
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 5))
			for {
				err := playMove(ctx, s, g, rng)
				if errors.Is(err, store.ErrClosed) {
					return
				}
				if err != nil {
					t.Errorf("session %d: %v", i, err)
					return
				}
				acked[i]++
			}
		})
	}
	time.Sleep(100 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	s2, err := Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	total := 0
	for i, id := range games {
		if n := countMoves(t, s2, id); n != acked[i] {
			t.Errorf("session %d: %d moves stored, %d acknowledged", i, n, acked[i])
		}
		total += acked[i]
	}
	if total == 0 {
		t.Fatal("no move was written before Close")
	}
}
