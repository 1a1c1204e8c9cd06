package server_test

import (
	"math"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/rating"
	"github.com/ssh2048/ssh2048/wire"
)

// TestTwoRacesAtOnceCountBothResults: a player may race in two races at
// once (two sessions, two rooms: only the same race refuses a second
// seat). Ann loses the first race to bob, then wins the second, which
// she joined before the first ended, against carl. Both races are rated
// and finished, so her rating must carry both results. It used to carry
// only the race stored last, each race having reckoned her new rating
// from the rating she had when she joined it: the loss was erased, a
// place on the ratings board gained by racing twice at once.
func TestTwoRacesAtOnceCountBothResults(t *testing.T) {
	const length = 3 * time.Second
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 200*time.Millisecond, length))
	annKey := newKey(t)

	// Ann opens both rooms, bob joins the first, carl the second.
	one := openScreen(t, ts.dial(t, "ann", annKey), "race --room room-one", 80, 24)
	one.waitText("ann's first room", "ann (host)")
	two := openScreen(t, ts.dial(t, "ann", annKey), "race --room room-two", 80, 24)
	two.waitText("ann's second room", "ann (host)")
	bob := openScreen(t, ts.dial(t, "bob", newKey(t)), "race --room room-one", 80, 24)
	bob.waitText("bob in room one", "Racers 2 of 8")
	carl := openScreen(t, ts.dial(t, "carl", newKey(t)), "race --room room-two", 80, 24)
	carl.waitText("carl in room two", "Racers 2 of 8")

	// The first race: bob scores, ann does nothing.
	one.waitText("bob in ann's first room", "Press enter to start")
	one.send("\r")
	bob.waitText("the first race", "left", "Place")
	scored := func(v *vtScreen, who string) {
		t.Helper()
		for range 100 {
			v.send(arrowLeft + arrowUp + arrowRight + arrowDown)
			time.Sleep(20 * time.Millisecond)
			if m := scoreRe.FindStringSubmatch(v.text()); m != nil && m[1] != "0" {
				return
			}
		}
		t.Fatalf("%s never scored:\n%s", who, v.text())
	}
	scored(bob, "bob")
	// The second race starts while the first runs: ann scores, carl
	// does nothing. It ends after the first.
	two.waitText("carl in ann's second room", "Press enter to start")
	two.send("\r")
	two.waitText("the second race", "left", "Place")
	scored(two, "ann")

	one.waitText("the first race's results", "Results")
	two.waitText("the second race's results", "Results")
	for _, v := range []*vtScreen{one, two, bob, carl} {
		v.send("q")
		v.wait()
	}

	rows := scoresJSON[wire.RatingEntry](t, ts.dial(t, "dora", newKey(t)), "scores --races --json")
	got := map[string]wire.RatingEntry{}
	for _, r := range rows {
		got[r.Name] = r
	}
	ann := got["ann"]
	if ann.Races != 2 || got["bob"].Races != 1 || got["carl"].Races != 1 {
		t.Fatalf("ratings: %+v", rows)
	}
	// Ann's rating after losing to a newcomer, then beating one.
	afterLoss := rating.Race([]rating.Rating{rating.Newcomer, rating.Newcomer}, []int{2, 1})[0]
	want := rating.Race([]rating.Rating{afterLoss, rating.Newcomer}, []int{1, 2})[0]
	onlyWin := rating.Race([]rating.Rating{rating.Newcomer, rating.Newcomer}, []int{1, 2})[0]
	if math.Abs(ann.Rating-want.Rating) > 0.5 {
		t.Fatalf("after a loss and a win, ann's rating is %.1f ± %.1f over %d races; want %.1f (both results). "+
			"A win alone from 1500 gives %.1f: the first race's loss was overwritten by the second race's result",
			ann.Rating, ann.Deviation, ann.Races, want.Rating, onlyWin.Rating)
	}
}
