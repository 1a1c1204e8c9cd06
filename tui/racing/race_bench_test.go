package racing

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// BenchmarkRaceView is one frame of the race screen at 80×24: the
// player's board and three opponents' live boards, as every racer draws
// it after each move of any racer.
func BenchmarkRaceView(b *testing.B) {
	b.Run("string", func(b *testing.B) {
		m, _ := runningRace(b, "ann", "bob", "cat", "dan")
		m.View()
		b.ReportAllocs()
		for b.Loop() {
			m.drawn = "" // as after a move: drawn again
			m.View()
		}
	})
	// As a racer's screen draws it: into the screen's buffer.
	b.Run("append", func(b *testing.B) {
		m, _ := runningRace(b, "ann", "bob", "cat", "dan")
		_, buf := m.AppendView(nil)
		b.ReportAllocs()
		for b.Loop() {
			_, buf = m.AppendView(buf[:0])
		}
	})
	// The balanced layout of a large window.
	b.Run("append-120x40", func(b *testing.B) {
		m, _ := runningRace(b, "ann", "bob", "cat", "dan")
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		_, buf := m.AppendView(nil)
		b.ReportAllocs()
		for b.Loop() {
			_, buf = m.AppendView(buf[:0])
		}
	})
	// As after an opponent's move, which changes their line and board:
	// most frames of a race.
	b.Run("opponent-moved", func(b *testing.B) {
		m, _ := runningRace(b, "ann", "bob", "cat", "dan")
		_, buf := m.AppendView(nil)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i = (i + 1) % len(m.view.Racers); i == m.me {
				i = (i + 1) % len(m.view.Racers)
			}
			m.view.Racers[i].Score += 4
			m.drawn = ""
			_, buf = m.AppendView(buf[:0])
		}
	})
}

// BenchmarkRaceLobbyView is one frame of a private room's lobby of four
// at 80×24, as every racer draws it at each join and, in the countdown,
// each second.
func BenchmarkRaceLobbyView(b *testing.B) {
	ctx := context.Background()
	tickets := joinRace(b, raceService(b), "blue-fox", "ann", "bob", "cat", "dan")
	m := New(Options{Ticket: tickets[1], Room: "blue-fox", Context: ctx})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	v, err := tickets[1].Next(ctx)
	if err != nil {
		b.Fatal(err)
	}
	m.Update(raceViewMsg{ticket: tickets[1], view: v})
	if !strings.Contains(m.View().Content, "dan") {
		b.Fatalf("no lobby of four:\n%s", m.View().Content)
	}
	b.ReportAllocs()
	for b.Loop() {
		m.View()
	}
}
