// Package rating is the Glicko-2 rating system (Mark Glickman, "Example of
// the Glicko-2 system", 2013: http://www.glicko.net/glicko/glicko2.pdf),
// step by step as the paper gives it, for the race ratings. No Go module
// of it is served to this project, so it is written here from the paper,
// and the paper's own worked example is its test.
//
// A race of several players is rated as one rating period in which each
// racer played every other: a win against each racer placed below, a
// loss against each placed above, a draw on a shared place.
package rating

import "math"

// Rating is one player's Glicko-2 state on the Glicko scale.
type Rating struct {
	Rating     float64 // 1500 for a newcomer
	Deviation  float64 // RD: how uncertain the rating is; 350 for a newcomer
	Volatility float64 // σ: how erratic the player's results are
}

// Newcomer is the rating of a player who has not raced yet.
var Newcomer = Rating{Rating: 1500, Deviation: 350, Volatility: 0.06}

// System constants: τ constrains the change of volatility over time (the
// paper suggests 0.3 to 1.2; smaller for games of chance, which 2048 is
// partly); epsilon is the convergence tolerance of step 5.
const (
	tau     = 0.5
	epsilon = 0.000001
	scale   = 173.7178 // Glicko to Glicko-2 scale (step 2)
)

// Game is one result against one opponent: Score 1 for a win, 0.5 for a
// draw, 0 for a loss.
type Game struct {
	Opponent Rating
	Score    float64
}

// Update returns r after one rating period with these games. With no
// games only the deviation grows (step 6 of the paper, applied alone).
func Update(r Rating, games []Game) Rating {
	// Step 2: to the Glicko-2 scale.
	mu := (r.Rating - 1500) / scale
	phi := r.Deviation / scale
	sigma := r.Volatility
	if len(games) == 0 {
		return Rating{Rating: r.Rating, Deviation: math.Sqrt(phi*phi+sigma*sigma) * scale, Volatility: sigma}
	}
	// Steps 3 and 4: the estimated variance v and improvement delta.
	var vInv, sum float64
	for _, g := range games {
		muJ := (g.Opponent.Rating - 1500) / scale
		phiJ := g.Opponent.Deviation / scale
		gJ := 1 / math.Sqrt(1+3*phiJ*phiJ/(math.Pi*math.Pi))
		e := 1 / (1 + math.Exp(-gJ*(mu-muJ)))
		vInv += gJ * gJ * e * (1 - e)
		sum += gJ * (g.Score - e)
	}
	v := 1 / vInv
	delta := v * sum
	// Step 5: the new volatility, by the Illinois algorithm.
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/(tau*tau)
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*tau) < 0 {
			k++
		}
		B = a - k*tau
	}
	fA, fB := f(A), f(B)
	for math.Abs(B-A) > epsilon {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	sigmaNew := math.Exp(A / 2)
	// Steps 6 and 7: the new deviation and rating.
	phiStar := math.Sqrt(phi*phi + sigmaNew*sigmaNew)
	phiNew := 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	muNew := mu + phiNew*phiNew*sum
	// Step 8: back to the Glicko scale.
	return Rating{Rating: muNew*scale + 1500, Deviation: phiNew * scale, Volatility: sigmaNew}
}

// Race rates one race: before holds each racer's rating and place their
// finishing place (1 is first; equal places are a draw). It returns the
// ratings after, in the same order.
func Race(before []Rating, place []int) []Rating {
	after := make([]Rating, len(before))
	for i := range before {
		var games []Game
		for j := range before {
			if i == j {
				continue
			}
			score := 0.5
			switch {
			case place[i] < place[j]:
				score = 1
			case place[i] > place[j]:
				score = 0
			}
			games = append(games, Game{Opponent: before[j], Score: score})
		}
		after[i] = Update(before[i], games)
	}
	return after
}
