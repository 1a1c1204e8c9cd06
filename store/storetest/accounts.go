package storetest

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// linkCode makes a code for the account and returns its hash.
func linkCode(tb testing.TB, s Store, id int64) []byte {
	tb.Helper()
	hash, ok := store.LinkCodeHash(store.NewLinkCode())
	if !ok {
		tb.Fatal("a new link code does not read back")
	}
	expires, err := s.AddLinkCode(context.Background(), store.AccountID(id), hash)
	if err != nil {
		tb.Fatalf("AddLinkCode(%d): %v", id, err)
	}
	if d := time.Until(expires); d <= 0 || d > store.LinkCodeTTL {
		tb.Fatalf("the code expires in %v, want within %v", d, store.LinkCodeTTL)
	}
	return hash
}

// playSome plays moves of a new free game of the player and returns it.
func playSome(tb testing.TB, s Store, playerID int64, size, moves int) *store.SavedGame {
	tb.Helper()
	ctx := context.Background()
	g, err := s.NewGame(ctx, playerID, size, store.KindHuman)
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(playerID), uint64(size)))
	for range moves {
		if err := playMove(ctx, s, g, rng); err != nil {
			tb.Fatal(err)
		}
	}
	return g
}

// testLinkKeyWithoutGames: a key with no games of its own joins the
// account of the code, and logs in to it from then on; the code is
// single use, and its account's own key cannot use it.
func testLinkKeyWithoutGames(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann := addPlayer(t, s, "ann")
	laptop, err := s.UpsertPlayer(ctx, "SHA256:ann-laptop", "ssh-ed25519", "annie")
	if err != nil {
		t.Fatal(err)
	}
	code := linkCode(t, s, ann.ID)
	if _, err := s.Link(ctx, code, ann.Fingerprint, false); !errors.Is(err, store.ErrAlreadyLinked) {
		t.Fatalf("the code used by its own account's key: %v, want ErrAlreadyLinked", err)
	}
	res, err := s.Link(ctx, code, "SHA256:ann-laptop", false)
	if err != nil || res.Account.ID != store.AccountID(ann.ID) || res.From != store.AccountID(laptop.ID) || res.Account.Keys != 2 || res.Account.Name != "ann" {
		t.Fatalf("Link = %+v, %v; want account %d with two keys", res, err, ann.ID)
	}
	if _, err := s.Link(ctx, code, "SHA256:ann-laptop", false); !errors.Is(err, store.ErrCodeUsed) {
		t.Fatalf("the code used again: %v, want ErrCodeUsed", err)
	}
	wrong, _ := store.LinkCodeHash(store.NewLinkCode())
	if _, err := s.Link(ctx, wrong, "SHA256:ann-laptop", false); !errors.Is(err, store.ErrCodeWrong) {
		t.Fatalf("a code never made: %v, want ErrCodeWrong", err)
	}
	p, err := s.UpsertPlayer(ctx, "SHA256:ann-laptop", "ssh-ed25519", "annie")
	if err != nil || p.ID != ann.ID || p.Name != "ann" || p.Fingerprint != ann.Fingerprint {
		t.Fatalf("the linked key logs in as %+v, %v; want ann's account %+v", p, err, ann)
	}
	if _, err := s.Account(ctx, store.AccountID(laptop.ID)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the linked key's old account: %v, want ErrNotFound", err)
	}
	keys, err := s.AccountKeys(ctx, store.AccountID(ann.ID))
	if err != nil || len(keys) != 2 || keys[0].Fingerprint != ann.Fingerprint || keys[1].Fingerprint != "SHA256:ann-laptop" {
		t.Fatalf("keys = %+v, %v", keys, err)
	}
	// The laptop's proposed name was freed with its account, held for ann.
	if _, err := s.ClaimName(ctx, store.AccountID(addPlayer(t, s, "cy").ID), "annie"); !errors.Is(err, store.ErrNameTaken) {
		t.Fatalf("another account claims the merged account's name: %v, want ErrNameTaken (held)", err)
	}
}

// testMergeKeepsEveryGame: a key with games of its own links only when
// asked to merge; then every game of both is the account's, its bests
// are the better of both, its races and rating one.
func testMergeKeepsEveryGame(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, desk := addPlayer(t, s, "ann"), addPlayer(t, s, "desk")
	var want []int64
	for _, g := range []*store.SavedGame{playSome(t, s, ann.ID, 4, 5), playSome(t, s, desk.ID, 4, 30), playSome(t, s, desk.ID, 5, 3)} {
		want = append(want, g.ID)
	}
	ga, err := s.OpenContestGame(ctx, ann.ID, 4, store.KindHuman, "race:both", 9)
	if err != nil {
		t.Fatal(err)
	}
	gd, err := s.OpenContestGame(ctx, desk.ID, 4, store.KindHuman, "race:both", 9)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, ga.ID, gd.ID)
	// Both played one day's challenge at one size: ann first, desk later
	// and for more.
	const day = "daily:2026-11-27"
	var daily [2]*store.SavedGame
	for i, id := range []int64{ann.ID, desk.ID} {
		if daily[i], err = s.OpenContestGame(ctx, id, 4, store.KindHuman, day, 77); err != nil {
			t.Fatal(err)
		}
		want = append(want, daily[i].ID)
	}
	for rng := rand.New(rand.NewPCG(1, 2)); daily[1].Engine.Score() == 0; {
		if err := playMove(ctx, s, daily[1], rng); err != nil {
			t.Fatal(err)
		}
	}
	start := time.UnixMicro(1_700_000_000_000_000)
	if err := s.RecordRace(ctx, store.RaceResult{Contest: "race:both", Size: 4, Started: start, Ended: start.Add(time.Minute), Entries: []store.RaceEntry{
		{PlayerID: desk.ID, GameID: gd.ID, Place: 1, After: &store.Rating{Rating: 1600, Deviation: 300, Volatility: 0.06, Races: 1}},
		{PlayerID: ann.ID, GameID: ga.ID, Place: 2, After: &store.Rating{Rating: 1400, Deviation: 290, Volatility: 0.06, Races: 1}},
	}}); err != nil {
		t.Fatal(err)
	}
	board, err := s.Leaderboard(ctx, 4, store.KindHuman, 10)
	if err != nil || len(board) != 2 {
		t.Fatalf("the board before: %+v, %v", board, err)
	}
	top := board[0]

	code := linkCode(t, s, ann.ID)
	if _, err := s.Link(ctx, code, desk.Fingerprint, false); !errors.Is(err, store.ErrMergeNeeded) {
		t.Fatalf("linking a key with games, not asked to merge: %v, want ErrMergeNeeded", err)
	}
	if p, err := s.UpsertPlayer(ctx, desk.Fingerprint, "ssh-ed25519", "desk"); err != nil || p.ID != desk.ID {
		t.Fatalf("after the refused link the key is %+v, %v; want its own account still", p, err)
	}
	res, err := s.Link(ctx, code, desk.Fingerprint, true)
	if err != nil || res.Games != 4 || res.Account.Keys != 2 {
		t.Fatalf("Link with merge = %+v, %v; want desk's 4 games moved", res, err)
	}
	games, err := s.PlayerGames(ctx, ann.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]bool{}
	for _, g := range games {
		got[g.ID] = true
	}
	for _, id := range want {
		if !got[id] {
			t.Errorf("game %d is not the merged account's: %+v", id, games)
		}
	}
	// One attempt a day: the account's is the one started first, not the
	// better (a second key's attempt counted was a place gained by trying
	// twice).
	if day, err := s.ContestBoard(ctx, day, 4, 10); err != nil || len(day) != 1 || day[0].GameID != daily[0].ID {
		t.Fatalf("the day's board after the merge: %+v, %v; want the account once, with ann's game, started first", day, err)
	}
	// And it is over: the account has played the day's tiles (desk's
	// game), so ann's, opened first, is not played on knowing them.
	if g, err := s.FullGame(ctx, daily[0].ID); err != nil || g.EndedAt == nil {
		t.Fatalf("the day's game kept after the merge: ended %v, %v; want it ended", g.EndedAt, err)
	}
	board, err = s.Leaderboard(ctx, 4, store.KindHuman, 10)
	if err != nil || len(board) != 1 || board[0].PlayerID != ann.ID || board[0].GameID != top.GameID || board[0].Score != top.Score {
		t.Fatalf("the 4×4 board after the merge: %+v, %v; want ann alone with the better best %+v", board, err, top)
	}
	if e, err := s.PlayerRank(ctx, ann.ID, 5, store.KindHuman); err != nil || e.Rank != 1 || e.GameID != want[2] {
		t.Fatalf("the 5×5 rank after the merge: %+v, %v; want desk's game", e, err)
	}
	ratings, err := s.Ratings(ctx, []int64{ann.ID, desk.ID})
	if err != nil || len(ratings) != 1 || ratings[ann.ID].Races != 2 || ratings[ann.ID].Deviation != 290 {
		t.Fatalf("ratings after the merge: %+v, %v; want ann's alone, the surer of the two, races counted together", ratings, err)
	}
	if rb, err := s.RatingBoard(ctx, 10); err != nil || len(rb) != 1 {
		t.Fatalf("rating board after the merge: %+v, %v", rb, err)
	}
}

// testRaceAfterAMerge: a racer's key merged into another account while
// the race ran (link --merge from another session) leaves the race to be
// recorded under an account that is gone. Its entry goes to the account
// that holds the racer's game now, unrated (its rating was reckoned from
// the account that is gone), and every other racer's entry and rating are
// stored as ever. The race used to be refused whole by the entry's
// foreign key: no racer's result or rating was kept.
func testRaceAfterAMerge(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	home, alpha, beta := addPlayer(t, s, "home"), addPlayer(t, s, "alpha"), addPlayer(t, s, "beta")
	games, err := raceMergedMidway(t, s, "race:merged", alpha, beta, home.ID)
	if err != nil {
		t.Fatalf("recording a race one of whose racers merged away: %v", err)
	}
	ratings, err := s.Ratings(ctx, []int64{home.ID, alpha.ID, beta.ID})
	if err != nil || len(ratings) != 1 || ratings[beta.ID].Rating != 1400 {
		t.Fatalf("ratings: %+v, %v; want beta's alone", ratings, err)
	}
	for _, g := range games {
		if full, err := s.FullGame(ctx, g.ID); err != nil || full.EndedAt == nil {
			t.Fatalf("game %d after the race: %+v, %v; want it ended", g.ID, full.GameSummary, err)
		}
	}
	// Two seats of one race on one account: testTwoSeatsOfOneRace.
}

// testTwoSeatsOfOneRace: a player who raced one race from two accounts
// and made them one (link --merge, during the race or after it) keeps one
// entry in it: the seat taken first, whichever placed better and
// whichever account was kept. Keeping the better place was the best of
// two attempts, chosen once both were known; keeping the kept account's
// was the same choice, made by which key ran link. A race with two seats
// on one account by its end rates neither: their ratings were reckoned
// apart, and which one counted would again be the player's choice.
func testTwoSeatsOfOneRace(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	start := time.UnixMicro(1_700_000_000_000_000)
	rating := func(r float64) *store.Rating {
		return &store.Rating{Rating: r, Deviation: 300, Volatility: 0.06, Races: 1}
	}
	// seats opens first's game, then second's, in contest.
	seats := func(contest string, first, second store.Player) (earlier, later *store.SavedGame) {
		t.Helper()
		var g [2]*store.SavedGame
		for i, p := range []store.Player{first, second} {
			var err error
			if g[i], err = s.OpenContestGame(ctx, p.ID, 3, store.KindHuman, contest, 5); err != nil {
				t.Fatal(err)
			}
		}
		return g[0], g[1]
	}
	wins := func(id int64) (races, won int) {
		t.Helper()
		board, err := s.BotRaceBoard(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range board {
			if e.PlayerID == id {
				races, won = races+e.Races, won+e.Wins
			}
		}
		return races, won
	}

	// During the race: early's key joins late's account; late placed first.
	early, late := addPlayer(t, s, "early"), addPlayer(t, s, "late")
	ge, gl := seats("race:during", early, late)
	if _, err := s.Link(ctx, linkCode(t, s, late.ID), early.Fingerprint, true); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordRace(ctx, store.RaceResult{Contest: "race:during", Size: 3, Bots: true, Started: start, Ended: start.Add(time.Minute), Entries: []store.RaceEntry{
		{PlayerID: late.ID, GameID: gl.ID, Place: 1},
		{PlayerID: early.ID, GameID: ge.ID, Place: 2},
	}}); err != nil {
		t.Fatalf("recording a race two of whose seats are one account by its end: %v", err)
	}
	if races, won := wins(late.ID); races != 1 || won != 0 {
		t.Errorf("merged during the race: %d races, %d won; want 1 race, not won (the seat taken first placed second)", races, won)
	}

	// The same, rated: neither seat's rating counts.
	early, late = addPlayer(t, s, "early2"), addPlayer(t, s, "late2")
	ge, gl = seats("race:rated", early, late)
	if _, err := s.Link(ctx, linkCode(t, s, late.ID), early.Fingerprint, true); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordRace(ctx, store.RaceResult{Contest: "race:rated", Size: 3, Started: start, Ended: start.Add(time.Minute), Entries: []store.RaceEntry{
		{PlayerID: late.ID, GameID: gl.ID, Place: 1, After: rating(1600)},
		{PlayerID: early.ID, GameID: ge.ID, Place: 2, After: rating(1400)},
	}}); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Ratings(ctx, []int64{late.ID, early.ID}); err != nil || len(r) != 0 {
		t.Errorf("ratings after a race with two seats on one account: %+v, %v; want none", r, err)
	}

	// After the race, either way round: the seat taken first stays.
	for _, keep := range []string{"the later seat's account", "the earlier seat's account"} {
		early, late := addPlayer(t, s, "e-"+keep), addPlayer(t, s, "l-"+keep)
		contest := "race:after " + keep
		ge, gl := seats(contest, early, late)
		if err := s.RecordRace(ctx, store.RaceResult{Contest: contest, Size: 3, Bots: true, Started: start, Ended: start.Add(time.Minute), Entries: []store.RaceEntry{
			{PlayerID: late.ID, GameID: gl.ID, Place: 1},
			{PlayerID: early.ID, GameID: ge.ID, Place: 2},
		}}); err != nil {
			t.Fatal(err)
		}
		to, from := late, early
		if keep == "the earlier seat's account" {
			to, from = early, late
		}
		if _, err := s.Link(ctx, linkCode(t, s, to.ID), from.Fingerprint, true); err != nil {
			t.Fatal(err)
		}
		if races, won := wins(to.ID); races != 1 || won != 0 {
			t.Errorf("merged after the race into %s: %d races, %d won; want 1 race, not won (the seat taken first placed second)", keep, races, won)
		}
	}
}

// raceMergedMidway races first (placed first) and second in contest,
// merges first's key into the account into while the race runs, and
// returns the racers' games and what recording the race gave.
func raceMergedMidway(t *testing.T, s Store, contest string, first, second store.Player, into int64) ([]*store.SavedGame, error) {
	t.Helper()
	ctx := context.Background()
	var games []*store.SavedGame
	for _, p := range []store.Player{first, second} {
		g, err := s.OpenContestGame(ctx, p.ID, 3, store.KindHuman, contest, 5)
		if err != nil {
			t.Fatal(err)
		}
		games = append(games, g)
	}
	if _, err := s.Link(ctx, linkCode(t, s, into), first.Fingerprint, true); err != nil {
		t.Fatalf("merging %s's key mid-race: %v", first.Name, err)
	}
	start := time.UnixMicro(1_700_000_000_000_000)
	return games, s.RecordRace(ctx, store.RaceResult{Contest: contest, Size: 3, Started: start, Ended: start.Add(time.Minute), Entries: []store.RaceEntry{
		{PlayerID: first.ID, GameID: games[0].ID, Place: 1, After: &store.Rating{Rating: 1600, Deviation: 300, Volatility: 0.06, Races: 1}},
		{PlayerID: second.ID, GameID: games[1].ID, Place: 2, After: &store.Rating{Rating: 1400, Deviation: 290, Volatility: 0.06, Races: 1}},
	}})
}

// testRemoveKey: a key goes, but never the last, nor another account's.
func testRemoveKey(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, bob := addPlayer(t, s, "ann"), addPlayer(t, s, "bob")
	id := store.AccountID(ann.ID)
	if err := s.RemoveKey(ctx, id, ann.Fingerprint); !errors.Is(err, store.ErrLastKey) {
		t.Fatalf("removing the last key: %v, want ErrLastKey", err)
	}
	if _, err := s.UpsertPlayer(ctx, "SHA256:ann-2", "ssh-ed25519", "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Link(ctx, linkCode(t, s, ann.ID), "SHA256:ann-2", false); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveKey(ctx, id, bob.Fingerprint); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("removing another account's key: %v, want ErrNotFound", err)
	}
	if err := s.RemoveKey(ctx, id, ann.Fingerprint); err != nil {
		t.Fatal(err)
	}
	if a, err := s.Account(ctx, id); err != nil || a.Keys != 1 || a.PublicID() != store.ShortID(ann.Fingerprint) {
		t.Fatalf("account after removing its first key: %+v, %v; want one key and the same public id", a, err)
	}
	// The removed key is a stranger now: it makes a new account, with an
	// id of its own.
	p, err := s.UpsertPlayer(ctx, ann.Fingerprint, "ssh-ed25519", "ann")
	if err != nil || p.ID == ann.ID || p.Fingerprint == ann.Fingerprint || p.Name == "ann" {
		t.Fatalf("the removed key connects: %+v, %v; want a new account, not named ann", p, err)
	}
}

// testMergedIDIsNotReused: the id of an account a merge deleted is
// never another account's, even when it was the newest: a session of
// the merged key opened before the merge still names it, and what it
// does (a new game, say) must not land on a stranger's account.
func testMergedIDIsNotReused(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, bob := addPlayer(t, s, "ann"), addPlayer(t, s, "bob")
	if _, err := s.Link(ctx, linkCode(t, s, ann.ID), bob.Fingerprint, true); err != nil {
		t.Fatal(err)
	}
	if cy := addPlayer(t, s, "cy"); cy.ID == bob.ID {
		t.Fatalf("a new account has the id %d of bob's, merged into ann's", cy.ID)
	}
	// A game of the id is refused as of no player: the game service
	// tells the session its account is gone.
	for what, open := range map[string]func() (*store.SavedGame, error){
		"NewGame":          func() (*store.SavedGame, error) { return s.NewGame(ctx, bob.ID, 4, store.KindHuman) },
		"LoadOrCreateGame": func() (*store.SavedGame, error) { return s.LoadOrCreateGame(ctx, bob.ID, 5, store.KindHuman) },
		"OpenContestGame": func() (*store.SavedGame, error) {
			return s.OpenContestGame(ctx, bob.ID, 4, store.KindHuman, "daily:2026-11-29", 7)
		},
	} {
		if _, err := open(); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s of the merged account's id: %v, want ErrNotFound", what, err)
		}
	}
}

// testGoneAccounts: of the accounts asked, GoneAccounts names those a
// link deleted, and no other (store.MergeWatcher: what a node asks when
// it may have missed the news of a merge).
func testGoneAccounts(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, bob, cy := addPlayer(t, s, "ann"), addPlayer(t, s, "bob"), addPlayer(t, s, "cy")
	asked := []store.AccountID{store.AccountID(ann.ID), store.AccountID(bob.ID), store.AccountID(cy.ID)}
	if gone, err := s.GoneAccounts(ctx, asked); err != nil || len(gone) != 0 {
		t.Fatalf("GoneAccounts before any link: %v, %v; want none", gone, err)
	}
	if _, err := s.Link(ctx, linkCode(t, s, ann.ID), bob.Fingerprint, true); err != nil {
		t.Fatal(err)
	}
	gone, err := s.GoneAccounts(ctx, asked)
	if err != nil || len(gone) != 1 || gone[0] != store.AccountID(bob.ID) {
		t.Fatalf("GoneAccounts after bob's key joined ann's account: %v, %v; want bob's account, %d, alone", gone, err, bob.ID)
	}
}

// testMergedInto: an account a link merged away resolves to the account
// it is part of now, through every later merge of that one (ann into
// bob, then bob into cy: ann is cy); an account's own id, and an id
// never given, are no merged account (ErrNotFound). The web site sends
// the old page of a merged account on to the account it joined.
func testMergedInto(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, bob, cy := addPlayer(t, s, "ann"), addPlayer(t, s, "bob"), addPlayer(t, s, "cy")
	if _, err := s.Link(ctx, linkCode(t, s, bob.ID), ann.Fingerprint, true); err != nil {
		t.Fatalf("ann's key joins bob's account: %v", err)
	}
	if into, err := s.MergedInto(ctx, store.AccountID(ann.ID)); err != nil || into != store.AccountID(bob.ID) {
		t.Fatalf("MergedInto(ann's account) after ann joined bob: %d, %v; want bob's, %d", into, err, bob.ID)
	}
	if _, err := s.Link(ctx, linkCode(t, s, cy.ID), bob.Fingerprint, true); err != nil {
		t.Fatalf("bob's key joins cy's account: %v", err)
	}
	for _, c := range []struct {
		what string
		id   int64
		want store.AccountID // 0: ErrNotFound
	}{
		{"ann's, merged into bob's, then bob's into cy's", ann.ID, store.AccountID(cy.ID)},
		{"bob's, merged into cy's", bob.ID, store.AccountID(cy.ID)},
		{"cy's, an account", cy.ID, 0},
		{"an id never given", cy.ID + 1000, 0},
	} {
		into, err := s.MergedInto(ctx, store.AccountID(c.id))
		switch {
		case c.want == 0 && !errors.Is(err, store.ErrNotFound):
			t.Errorf("MergedInto(%s): %d, %v; want ErrNotFound", c.what, into, err)
		case c.want != 0 && (err != nil || into != c.want):
			t.Errorf("MergedInto(%s): %d, %v; want %d", c.what, into, err, c.want)
		}
	}
}

// testNames: a name is one account's under case folding and look-alikes;
// it stays whatever user name later connections use; renames are rate
// limited; a new account is named after its user name only when that is
// free and not a generic login.
func testNames(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	alice := addPlayer(t, s, "alice")
	if alice.Name != "alice" {
		t.Fatalf("a new account from user alice is named %q", alice.Name)
	}
	for _, user := range []string{"root", "ALICE", "\u0430lice"} { // Cyrillic а
		p, err := s.UpsertPlayer(ctx, "SHA256:new-"+user, "ssh-ed25519", user)
		if err != nil || !strings.HasPrefix(p.Name, store.GeneratedPrefix) {
			t.Errorf("a new account from user %q is named %q, %v; want a generated name", user, p.Name, err)
		}
	}
	bob := addPlayer(t, s, "bob")
	before := playSome(t, s, bob.ID, 4, 2) // a game of bob's, before his rename
	for _, name := range []string{"alice", "Alice", "\u0430lice"} {
		if _, err := s.ClaimName(ctx, store.AccountID(bob.ID), name); !errors.Is(err, store.ErrNameTaken) {
			t.Errorf("bob claims %q: %v, want ErrNameTaken", name, err)
		}
	}
	a, err := s.ClaimName(ctx, store.AccountID(bob.ID), "Robert")
	if err != nil || a.Name != "Robert" || a.RenamedAt.IsZero() {
		t.Fatalf("bob renames himself Robert: %+v, %v", a, err)
	}
	if _, err := s.ClaimName(ctx, store.AccountID(bob.ID), "Bobby"); !errors.Is(err, store.ErrRenameTooSoon) {
		t.Fatalf("a second rename at once: %v, want ErrRenameTooSoon", err)
	}
	if _, err := s.ClaimName(ctx, store.AccountID(alice.ID), "BOB"); !errors.Is(err, store.ErrNameTaken) {
		t.Fatalf("alice claims bob's old name at once: %v, want ErrNameTaken (held)", err)
	}
	p, err := s.UpsertPlayer(ctx, bob.Fingerprint, "ssh-ed25519", "mallory")
	if err != nil || p.Name != "Robert" {
		t.Fatalf("bob connects as mallory: %+v, %v; want still Robert", p, err)
	}
	// Past games show the account's name now.
	if board, err := s.Leaderboard(ctx, 4, store.KindHuman, 10); err != nil || len(board) != 1 || board[0].Name != "Robert" || board[0].GameID != before.ID {
		t.Fatalf("the board shows %+v, %v; want Robert's game from before the rename", board, err)
	}
	if g, err := s.FullGame(ctx, before.ID); err != nil || g.Player != "Robert" {
		t.Fatalf("the game from before the rename is %q's, %v; want Robert's", g.Player, err)
	}
}

// testConcurrentNameClaims: of many accounts claiming one name at once,
// one gets it.
func testConcurrentNameClaims(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	const n = 16
	ids := make([]store.AccountID, n)
	for i := range ids {
		ids[i] = store.AccountID(addPlayer(t, s, "racer"+string(rune('a'+i))).ID)
	}
	if granted := AtOnce(t, n, store.ErrNameTaken, func(i int) error {
		_, err := s.ClaimName(ctx, ids[i], "Zed")
		return err
	}); granted != 1 {
		t.Fatalf("%d of %d claims of one name granted, want 1", granted, n)
	}
}

// AtOnce runs do(0) … do(n-1) at once and returns how many succeeded; an
// error other than refused fails the test.
func AtOnce(t *testing.T, n int, refused error, do func(i int) error) int {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = do(i) })
	}
	wg.Wait()
	ok := 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, refused):
			t.Errorf("%d: %v, want nil or %v", i, err, refused)
		}
	}
	return ok
}

// testConcurrentLinks: a code used from several keys at once links one of
// them; the others are told it was used, and keep their accounts.
func testConcurrentLinks(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann := addPlayer(t, s, "ann")
	const n = 8
	fps := make([]string, n)
	for i := range fps {
		fps[i] = "SHA256:linker-" + string(rune('a'+i))
		if _, err := s.UpsertPlayer(ctx, fps[i], "ssh-ed25519", "linker"); err != nil {
			t.Fatal(err)
		}
	}
	code := linkCode(t, s, ann.ID)
	linked := AtOnce(t, n, store.ErrCodeUsed, func(i int) error {
		_, err := s.Link(ctx, code, fps[i], false)
		return err
	})
	if a, err := s.Account(ctx, store.AccountID(ann.ID)); linked != 1 || err != nil || a.Keys != 2 {
		t.Fatalf("%d of %d links granted (account %+v, %v), want 1 and two keys", linked, n, a, err)
	}
}
