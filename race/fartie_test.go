package race

import (
	"context"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
)

// TestFarRacerTieGoesToWhoReachedFirst: a tie goes to whoever reached
// the score first (docs/contests.md), whichever node a racer plays on.
// The far racer reaches a score first; the owner does not hear that move
// (its queue of requests drops what it cannot take, and the bus may lose
// an event: "a lost state is made up for by the next"). The host then
// reaches the same score, and the far racer plays one more move that
// scores nothing: its report makes up the score, and must say when the
// score was reached, not when that later move was reported. The far
// racer used to be placed second: one more move lost them the tie that
// stopping would have kept.
func TestFarRacerTieGoesToWhoReachedFirst(t *testing.T) {
	nodes, _ := newRaceCluster(t, 2, 3*time.Second)
	a, b := nodes[0].svc, nodes[1].svc
	h, g := raceAcross(t, a, b, "tie-room")
	t.Cleanup(h.Leave)
	t.Cleanup(g.Leave)
	ph, pg := h.Play(), g.Play()
	if ph == nil || pg == nil || ph.Board() != pg.Board() {
		t.Fatal("the racers do not start on the same tiles")
	}

	// The moves to the first points, and then a move that scores none,
	// found on a copy of the race's game.
	sim, err := engine.Current.NewGame(h.race.size, h.race.seed)
	if err != nil {
		t.Fatal(err)
	}
	var toScore []engine.Direction
	for i := 0; sim.Score() == 0; i++ {
		d := engine.Directions()[i%4]
		if sim.Move(d).Moved {
			toScore = append(toScore, d)
		}
		if i > 1000 {
			t.Fatal("no points")
		}
	}
	var nothing engine.Direction
	found := false
	for _, d := range engine.Directions() {
		c, _ := engine.Current.Replay(h.race.size, h.race.seed, toScore)
		if r := c.Move(d); r.Moved && r.Gained == 0 {
			nothing, found = d, true
			break
		}
	}
	if !found {
		t.Skip("no move scores nothing after the first points on this seed")
	}
	play := func(p *game.Play, ds ...engine.Direction) {
		t.Helper()
		for _, d := range ds {
			if r, err := p.Move(context.Background(), d); err != nil || !r.Moved {
				t.Fatalf("move %v: %+v %v", d, r, err)
			}
		}
	}

	// The far racer reaches the score first; the owner misses that move.
	g.hook.unheard.Store(true)
	play(pg, toScore...)
	g.hook.unheard.Store(false)
	score := pg.Score()
	time.Sleep(100 * time.Millisecond)
	// The host reaches the same score, later.
	play(ph, toScore...)
	if ph.Score() != score {
		t.Fatalf("the same moves on the same tiles give %d and %d", ph.Score(), score)
	}
	time.Sleep(100 * time.Millisecond)
	// The far racer plays one more move, which scores nothing.
	play(pg, nothing)
	waitFor(t, h, "the far racer's score at the owner", func(v View) bool { return v.Racers[1].Score == score })

	end := waitFor(t, h, "the end", func(v View) bool { return v.Phase == Finished })
	host, far := end.Racers[0], end.Racers[1]
	if host.Score != far.Score {
		t.Fatalf("no tie: %+v", end.Racers)
	}
	if far.Place != 1 {
		t.Fatalf("both scored %d; the far racer reached it 100 ms before the host, yet is placed %d and the host %d: "+
			"the far racer's tie was reckoned from the report of a later move that scored nothing", score, far.Place, host.Place)
	}
}
