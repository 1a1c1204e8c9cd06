package tui

import (
	"context"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/db"
	"github.com/ssh2048/ssh2048/game"
)

// BenchmarkRaceView is one frame of the race screen at 80×24: the
// player's board and three opponents' live boards, as every racer draws
// it after each move of any racer.
func BenchmarkRaceView(b *testing.B) {
	store, err := db.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	svc := game.New(store, nil, game.WithRaceTimes(10*time.Millisecond, 10*time.Millisecond, time.Minute))
	ctx := context.Background()
	var tickets []*game.RaceTicket
	for _, name := range []string{"ann", "bob", "cat", "dan"} {
		p, err := svc.Identify(ctx, "SHA256:"+name, "ssh-ed25519", name)
		if err != nil {
			b.Fatal(err)
		}
		seat := svc.Seat(p, nil)
		defer seat.Close()
		tk, err := svc.JoinRace(ctx, seat, "", 4, false)
		if err != nil {
			b.Fatal(err)
		}
		defer tk.Leave()
		tickets = append(tickets, tk)
	}
	m := NewRace(RaceOptions{Ticket: tickets[0], Context: ctx})
	for {
		v, err := tickets[0].Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if v.Phase == game.Running {
			m.Update(raceViewMsg{ticket: tickets[0], view: v})
			break
		}
	}
	m.View()
	b.ReportAllocs()
	for b.Loop() {
		m.View()
	}
}
