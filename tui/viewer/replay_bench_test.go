package viewer

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// longGameMoves is the length of the game the replay benchmarks open:
// the target is a 20,000-move game opening in under 200 ms and
// going to any move in under 50 ms.
const longGameMoves = 20000

// BenchmarkReplay opens the replay of a stored 20,000-move 8×8 game the
// way `replay GAME` does (read from SQLite, every board rebuilt on the
// server, the first frame drawn), and goes to random moves in it (':'
// then the number, then the frame):
//
//	go test ./tui/ -run '^$' -bench Replay -benchtime 20x
func BenchmarkReplay(b *testing.B) {
	ctx := context.Background()
	quiet := slog.New(slog.DiscardHandler)
	st, err := sqlite.Open(ctx, b.TempDir(), sqlite.WithLogger(quiet), sqlite.WithDurability(sqlite.CrashSafe))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	svc := game.New(st, quiet)
	p, err := svc.Identify(ctx, "SHA256:bench", "ssh-ed25519", "bench")
	if err != nil {
		b.Fatal(err)
	}
	seat := svc.Seat(p, nil)
	play, err := seat.Open(ctx, 8, store.KindHuman, false)
	if err != nil {
		b.Fatal(err)
	}
	// A corner strategy keeps an 8×8 game going for tens of thousands
	// of moves.
	for play.Moves() < longGameMoves {
		moved := false
		for _, d := range []engine.Direction{engine.Down, engine.Left, engine.Right, engine.Up} {
			res, err := play.Move(ctx, d)
			if err != nil {
				b.Fatal(err)
			}
			if res.Moved {
				moved = true
				break
			}
		}
		if !moved {
			b.Fatalf("the game ended after %d moves", play.Moves())
		}
	}
	id := play.ID()
	seat.Close()
	open := func() *Viewer {
		r, err := svc.Replay(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		v := NewReplay(ViewOptions{Games: svc, Context: ctx}, r)
		v.Init()
		v.Update(tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
		v.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		_ = v.View()
		return v
	}

	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			open()
		}
		b.ReportMetric(longGameMoves, "moves")
	})
	b.Run("seek", func(b *testing.B) {
		v := open()
		rng := rand.New(rand.NewPCG(1, 2))
		for b.Loop() {
			v.Update(tuitest.KeyPress(":"))
			for _, c := range strconv.Itoa(rng.IntN(longGameMoves + 1)) {
				v.Update(tuitest.KeyPress(string(c)))
			}
			v.Update(tuitest.KeyPress("enter"))
			_ = v.View()
		}
	})
}
