package viewer

import (
	"context"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui/draw"
)

// BenchmarkSpectatorFrame is a spectator's work for one move it is shown:
// the snapshot taken in, and the frame drawn. Hundreds of spectators of
// one game do it for every move, so it is what a spectator costs the
// server's CPU besides the frame's bytes (compare BenchmarkView, the
// player's own frame):
//
//	go test ./tui/ -run '^$' -bench 'SpectatorFrame|View/4x4-80x24-TrueColor'
func BenchmarkSpectatorFrame(b *testing.B) {
	g, err := engine.ChaCha8.NewGame(4, 11)
	if err != nil {
		b.Fatal(err)
	}
	var snaps []game.Snapshot
	for i := 0; len(snaps) < 200 && !g.Over(); i++ {
		for _, d := range []engine.Direction{engine.Left, engine.Down, engine.Right, engine.Up} {
			if res := g.Move(d); res.Moved {
				snaps = append(snaps, game.Snapshot{GameID: 1, Player: "ann", Size: 4, Board: g.Board(), Score: g.Score(),
					Moves: g.Moves(), Last: res, Status: game.Live, Watchers: 500, Version: uint64(len(snaps) + 1)})
				break
			}
		}
	}
	spectators := func(n int) []*spectator {
		out := make([]*spectator, n)
		for i := range out {
			out[i] = newSpectator(ViewOptions{Context: context.Background(), Now: time.Now}, false)
			out[i].p = draw.NewPane(80, 24, colorprofile.TrueColor, false)
			out[i].apply(game.Snapshot{}, false, snaps[0])
		}
		return out
	}
	// alone: every frame is new (the frame no other spectator drew).
	b.Run("alone", func(b *testing.B) {
		s := spectators(1)[0]
		b.ReportAllocs()
		i := 1
		for b.Loop() {
			frames.Forget() // a frame no other spectator drew
			s.apply(s.snap, true, snaps[i%len(snaps)])
			s.Render()
			i++
		}
	})
	// in-step: 100 spectators of the game each draw every move, as they
	// do on a server; per spectator and move.
	b.Run("in-step", func(b *testing.B) {
		ss := spectators(100)
		b.ReportAllocs()
		i := 1
		for b.Loop() {
			s := ss[i%len(ss)]
			s.apply(s.snap, true, snaps[(i/len(ss))%len(snaps)])
			s.Render()
			i++
		}
	})
}
