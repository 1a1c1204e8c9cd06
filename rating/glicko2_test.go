package rating

import (
	"math"
	"testing"
)

// TestPaperExample is the worked example of Glickman's paper: a player
// rated 1500 (RD 200, σ 0.06) beats a 1400 (RD 30) and loses to a 1550
// (RD 100) and a 1700 (RD 300); the paper gets 1464.06, RD 151.52,
// σ 0.05999.
func TestPaperExample(t *testing.T) {
	got := Update(Rating{1500, 200, 0.06}, []Game{
		{Rating{1400, 30, 0.06}, 1},
		{Rating{1550, 100, 0.06}, 0},
		{Rating{1700, 300, 0.06}, 0},
	})
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"rating", got.Rating, 1464.06, 0.01},
		{"deviation", got.Deviation, 151.52, 0.01},
		{"volatility", got.Volatility, 0.05999, 0.00001},
	} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %.5f, the paper gives %.5f", c.name, c.got, c.want)
		}
	}
}

func TestRace(t *testing.T) {
	four := []Rating{Newcomer, Newcomer, Newcomer, Newcomer}
	after := Race(four, []int{1, 2, 3, 4})
	for i := 1; i < 4; i++ {
		if !(after[i-1].Rating > after[i].Rating) {
			t.Fatalf("place %d rated %.1f, not above place %d's %.1f", i, after[i-1].Rating, i+1, after[i].Rating)
		}
	}
	if sum := after[0].Rating + after[1].Rating + after[2].Rating + after[3].Rating; math.Abs(sum-6000) > 1 {
		t.Errorf("equal newcomers: ratings sum to %.2f, want 6000", sum)
	}
	for _, r := range after {
		if r.Deviation >= Newcomer.Deviation {
			t.Errorf("deviation %.1f did not shrink after a race", r.Deviation)
		}
	}
	tie := Race([]Rating{Newcomer, Newcomer}, []int{1, 1})
	if math.Abs(tie[0].Rating-1500) > 0.001 || math.Abs(tie[1].Rating-1500) > 0.001 {
		t.Errorf("a draw between equals moved the ratings: %+v", tie)
	}
	idle := Update(Rating{1500, 50, 0.06}, nil)
	if idle.Rating != 1500 || idle.Deviation <= 50 {
		t.Errorf("a period without games: %+v, want the rating kept and the deviation grown", idle)
	}
}
