//go:build linux

package sqlite

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

const fullChildEnv = "SSH2048_DB_FULL_CHILD_DIR"

// fullDiskLimit is the file size past which the child's writes fail
// while its disk is "full": below the database file's and the WAL's
// sizes once the schema is made, so that commits and checkpoints fail.
const fullDiskLimit = 64 << 10

// unlimited is RLIM_INFINITY.
const unlimited = ^uint64(0)

// TestDiskFullChild is not a test on its own: TestDiskFull runs the test
// binary again with this test selected and fullChildEnv set. Four players
// play moves until told on stdin to stop; "full" limits the size any
// file of the process may grow to (RLIMIT_FSIZE: a write past it fails
// with EFBIG, as one fails with ENOSPC on a full disk) and "space" lifts
// the limit. Each move's outcome is a line: "ack PLAYER GAME SEQ DIR" once
// AppendMove returned, "fail PLAYER GAME SEQ ERR" when it failed (SEQ "end" or
// "new" for ending a game or starting the next); a failed move
// is undone (the game is replayed without it) and played again, as the
// game screen and bot keep a game as it was before a move they could not
// save.
func TestDiskFullChild(t *testing.T) {
	dir := os.Getenv(fullChildEnv)
	if dir == "" {
		t.Skip("helper process for TestDiskFull")
	}
	ctx := context.Background()
	s, say, fail := openChild(ctx, dir)
	var stopping atomic.Bool
	var players sync.WaitGroup
	for i := range 4 {
		players.Add(1)
		go func() {
			defer players.Done()
			p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:full-%d", i), "ssh-ed25519", "full")
			if err != nil {
				fail(err)
			}
			g, err := s.LoadOrCreateGame(ctx, p.ID, 3+i%2, store.KindHuman) // small boards: games end often
			if err != nil {
				fail(err)
			}
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)))
			var dirs []engine.Direction // g's moves stored so far
			for !stopping.Load() {
				d, ok := movingDirection(g.Engine, rng)
				if !ok {
					// Ending and starting games write too: tried
					// again until they succeed, each failure said
					// as a move's is.
					for {
						err := s.EndGame(ctx, g.ID, store.StateOf(g.Engine))
						if err == nil {
							break
						}
						say("fail %d %d end %v", i, g.ID, err)
						time.Sleep(5 * time.Millisecond)
					}
					say("end %d", g.ID)
					for {
						next, err := s.NewGame(ctx, p.ID, g.Size, store.KindHuman)
						if err == nil {
							g = next
							break
						}
						say("fail %d %d new %v", i, g.ID, err)
						time.Sleep(5 * time.Millisecond)
					}
					dirs = dirs[:0]
					continue
				}
				seq := g.Engine.Moves()
				g.Engine.Move(d)
				if err := s.AppendMove(ctx, g.ID, seq, d, store.StateOf(g.Engine)); err != nil {
					say("fail %d %d %d %v", i, g.ID, seq, err)
					if g.Engine, err = g.Engine.Generator().Replay(g.Size, g.Seed, dirs); err != nil {
						fail(err)
					}
					time.Sleep(time.Millisecond)
					continue
				}
				dirs = append(dirs, d)
				say("ack %d %d %d %d", i, g.ID, seq, d)
			}
		}()
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		limit := syscall.Rlimit{Cur: unlimited, Max: unlimited}
		switch sc.Text() {
		case "full":
			limit.Cur = fullDiskLimit
		case "space":
		case "stop":
			stopping.Store(true)
			players.Wait()
			say("stopped")
			os.Exit(0) // without closing the store, as a crash would
		}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
			fail(err)
		}
		say("%s", sc.Text())
	}
	select {}
}

// TestDiskFull: moves go on failing while the disk is full and succeed
// again once there is room, with nothing half-done. Every acknowledged move
// is stored and no failed one is (the failed move's number is played again
// with whatever direction comes next: had the failure been stored, that
// would be a conflict), the database passes integrity_check, and each
// game's stored moves replay to exactly the acknowledged ones.
func TestDiskFull(t *testing.T) {
	if os.Getenv(fullChildEnv) != "" {
		t.Skip("in the child")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDiskFullChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fullChildEnv+"="+dir)
	var stderr bytes.Buffer // read once the child has ended
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()

	acked := map[int64][]engine.Direction{} // each game's acknowledged moves, in order
	var fails []string
	failedSince := map[int]int{} // failures since the last command, by player
	ackedSince := map[int]int{}  // acknowledgements since the last command, by player
	// until reads the child's lines until done says so.
	until := func(what string, done func(line string) bool) {
		t.Helper()
		timeout := time.After(60 * time.Second)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					cmd.Wait()
					t.Fatalf("the child ended (%v) while waiting for %s; its stderr:\n%s", cmd.ProcessState, what, stderr.Bytes())
				}
				var game, seq int64
				var player int
				var d engine.Direction
				switch {
				case strings.HasPrefix(line, "error "):
					t.Fatalf("child: %s", line)
				case strings.HasPrefix(line, "ack "):
					if _, err := fmt.Sscanf(line, "ack %d %d %d %d", &player, &game, &seq, &d); err != nil {
						t.Fatalf("child said %q", line)
					}
					if int(seq) != len(acked[game]) {
						t.Fatalf("move %d of game %d acknowledged after %d", seq, game, len(acked[game]))
					}
					acked[game] = append(acked[game], d)
					ackedSince[player]++
				case strings.HasPrefix(line, "fail "):
					if _, err := fmt.Sscanf(line, "fail %d", &player); err != nil {
						t.Fatalf("child said %q", line)
					}
					fails = append(fails, line)
					failedSince[player]++
				}
				if done(line) {
					return
				}
			case <-timeout:
				t.Fatalf("waited a minute for %s (%d moves failed)", what, len(fails))
			}
		}
	}
	// command tells the child c, and reads its lines until it answers.
	command := func(c, answer string) {
		t.Helper()
		if _, err := io.WriteString(stdin, c+"\n"); err != nil {
			t.Fatal(err)
		}
		until("the child to take "+c, func(line string) bool { return line == answer })
		clear(ackedSince)
		clear(failedSince)
	}
	moves := func() (n int) {
		for _, dirs := range acked {
			n += len(dirs)
		}
		return n
	}

	until("moves", func(string) bool { return moves() >= 100 })
	command("full", "full")
	// each reports whether each of the four players has n in counts.
	each := func(counts map[int]int, n int) func(string) bool {
		return func(string) bool {
			for player := range 4 {
				if counts[player] < n {
					return false
				}
			}
			return true
		}
	}
	until("every player's moves to fail", each(failedSince, 50))
	for _, f := range fails {
		if !strings.Contains(f, "file too large") {
			t.Fatalf("a move failed for another reason than the full disk: %s", f)
		}
	}
	command("space", "space")
	until("every player to play again", each(ackedSince, 100))
	command("stop", "stopped")
	cmd.Wait()
	t.Logf("%d moves acknowledged, %d failed while the disk was full", moves(), len(fails))

	checkAfterCrash(t, dir, 0, func(stored func(game, seq int64) bool, _ func(int64) bool) {})
	s, err := Open(context.Background(), dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for id, dirs := range acked {
		g, err := s.loadGame(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		want, err := g.Engine.Generator().Replay(g.Size, g.Seed, dirs)
		if err != nil {
			t.Fatal(err)
		}
		if g.Engine.Moves() != want.Moves() || g.Engine.Board() != want.Board() || g.Engine.Score() != want.Score() {
			t.Errorf("game %d: stored %d moves, score %d, board\n%v\nacknowledged %d, score %d, board\n%v",
				id, g.Engine.Moves(), g.Engine.Score(), g.Engine.Board(), want.Moves(), want.Score(), want.Board())
		}
	}
}
