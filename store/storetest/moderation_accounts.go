package storetest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// testLinkPastABan: a link carries no key, nor a key's games, past a ban
// in force (docs/moderation.md): not into a banned account, not from a
// banned account, not a banned key; the refusal changes nothing and
// leaves the code good. Once the ban is lifted the link is made, and the
// lifted ban is the merged account's, for the record.
func testLinkPastABan(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, eve, mal := addPlayer(t, s, "ann"), addPlayer(t, s, "eve"), addPlayer(t, s, "mal")
	fresh, err := s.UpsertPlayer(ctx, "SHA256:fresh", "ssh-ed25519", "fresh")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ban(ctx, console, store.BanSpec{Kind: store.BanPlayer, Target: itoa(eve.ID), PlayerID: eve.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ban(ctx, console, store.BanSpec{Kind: store.BanKey, Target: mal.Fingerprint}); err != nil {
		t.Fatal(err)
	}
	annCode, eveCode := linkCode(t, s, ann.ID), linkCode(t, s, eve.ID)
	for _, c := range []struct {
		what string
		code []byte
		key  string
	}{
		{"a key into the banned account", eveCode, fresh.Fingerprint},
		{"the banned account's key into a clean one", annCode, eve.Fingerprint},
		{"a banned key into a clean account", annCode, mal.Fingerprint},
	} {
		if _, err := s.Link(ctx, c.code, c.key, true); !errors.Is(err, store.ErrBanned) {
			t.Errorf("link %s: %v, want ErrBanned", c.what, err)
		}
	}
	for _, p := range []store.Player{ann, eve, mal, fresh} {
		if a, err := s.Account(ctx, store.AccountID(p.ID)); err != nil || a.Keys != 1 {
			t.Fatalf("%s after the refused links: %+v, %v; want its one key", p.Name, a, err)
		}
	}
	if _, err := s.Unban(ctx, console, store.BanPlayer, itoa(eve.ID)); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Link(ctx, annCode, eve.Fingerprint, true); err != nil || res.Account.Keys != 2 {
		t.Fatalf("link once the ban is lifted, with the code refused before: %+v, %v", res, err)
	}
	d, err := s.PlayerDetail(ctx, ann.ID)
	if err != nil || len(d.Bans) != 1 || d.Bans[0].Target != itoa(eve.ID) || len(d.Keys) != 2 {
		t.Fatalf("ann after eve's key joined: bans %+v, keys %+v, %v; want eve's lifted ban and two keys", d.Bans, d.Keys, err)
	}
}

// testBansNameTheAccountsKeys: Bans gives a player's ban with every key
// its account has as it is read, a key merged in before the ban too (a
// session of that key still names the account merged away); a key's ban
// and a range's name no account's keys.
func testBansNameTheAccountsKeys(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, laptop, mal := addPlayer(t, s, "ann"), addPlayer(t, s, "laptop"), addPlayer(t, s, "mal")
	playSome(t, s, laptop.ID, 4, 8)
	if _, err := s.Link(ctx, linkCode(t, s, ann.ID), laptop.Fingerprint, true); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []store.BanSpec{
		{Kind: store.BanPlayer, Target: itoa(ann.ID), PlayerID: ann.ID},
		{Kind: store.BanKey, Target: mal.Fingerprint},
		{Kind: store.BanCIDR, Target: "192.0.2.0/24"},
	} {
		if _, err := s.Ban(ctx, console, spec); err != nil {
			t.Fatal(err)
		}
	}
	bans, err := s.Bans(ctx, time.Now())
	if err != nil || len(bans) != 3 {
		t.Fatalf("bans: %+v, %v; want three", bans, err)
	}
	want := []string{ann.Fingerprint, laptop.Fingerprint}
	slices.Sort(want)
	if got := bans[2]; got.Kind != store.BanPlayer || !slices.Equal(slices.Sorted(slices.Values(got.Keys)), want) {
		t.Errorf("ann's ban: %+v; want her account's keys %q", got, want)
	}
	for _, other := range bans[:2] {
		if other.Keys != nil {
			t.Errorf("a %s ban with keys: %+v", other.Kind, other)
		}
	}
}

// testMergeKeepsModeration: a merge of two accounts keeps what admins
// decided of either: admin if either was, hidden if either was (so every
// game of the merged account is off the boards until unhidden), and the
// audit rows of both, now the merged account's.
func testMergeKeepsModeration(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, bob, cy := addPlayer(t, s, "ann"), addPlayer(t, s, "bob"), addPlayer(t, s, "cy")
	playSome(t, s, ann.ID, 4, 8)
	playSome(t, s, bob.ID, 4, 8)
	playSome(t, s, cy.ID, 4, 8)
	if err := s.Grant(ctx, console, bob.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.HidePlayer(ctx, console, bob.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Link(ctx, linkCode(t, s, ann.ID), bob.Fingerprint, true); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.IsAdmin(ctx, ann.ID); err != nil || !ok {
		t.Fatalf("ann, merged with admin bob: admin %v, %v", ok, err)
	}
	rows, err := s.Leaderboard(ctx, 4, store.KindHuman, 100)
	if err != nil || len(rows) != 1 || rows[0].PlayerID != cy.ID {
		t.Fatalf("board after a hidden account merged into ann: %+v, %v; want cy alone", rows, err)
	}
	d, err := s.PlayerDetail(ctx, ann.ID)
	if err != nil || !d.Hidden || len(d.HiddenGames) != 2 {
		t.Fatalf("ann after the merge: %+v, %v; want hidden, both games hidden", d, err)
	}
	var actions []string
	for _, a := range d.Actions {
		actions = append(actions, a.Action)
	}
	if !slices.Equal(actions, []string{"grant", "hide"}) {
		t.Fatalf("ann's audit rows after the merge: %v; want bob's grant and hide", actions)
	}
	if err := s.UnhidePlayer(ctx, console, ann.ID); err != nil {
		t.Fatal(err)
	}
	if rows, err := s.Leaderboard(ctx, 4, store.KindHuman, 100); err != nil || len(rows) != 2 {
		t.Fatalf("board once ann is unhidden: %+v, %v; want ann and cy", rows, err)
	}
}

// testMergeKeepsNameLock: an admin's name lock holds for the account a
// locked one merges into: a player cannot shed it by merging into a
// fresh account of their own and taking back, from its held names, the
// name the admin took away.
func testMergeKeepsNameLock(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	imp, fresh := addPlayer(t, s, "imposter"), addPlayer(t, s, "fresh")
	if _, err := s.Rename(ctx, console, imp.ID, "Someone", time.Now().Add(30*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Link(ctx, linkCode(t, s, fresh.ID), imp.Fingerprint, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimName(ctx, store.AccountID(fresh.ID), "imposter"); !errors.Is(err, store.ErrNameLocked) {
		t.Fatalf("renaming, after merging a locked account in, to the name the admin took: %v, want ErrNameLocked", err)
	}
}

// testHiddenGames: HiddenGames says which games an admin has hidden, by
// the game or by its player, games in progress included.
func testHiddenGames(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, bob := addPlayer(t, s, "ann"), addPlayer(t, s, "bob")
	annEnded, bobEnded := playSome(t, s, ann.ID, 4, 8), playSome(t, s, bob.ID, 4, 8)
	annNow, err := s.NewGame(ctx, ann.ID, 5, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*store.SavedGame{annEnded, bobEnded} {
		if err := s.EndGame(ctx, g.ID, store.StateOf(g.Engine)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.HideGame(ctx, console, bobEnded.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.HidePlayer(ctx, console, ann.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.HiddenGames(ctx, []int64{annEnded.ID, annNow.ID, bobEnded.ID, 987654})
	want := map[int64]bool{annEnded.ID: true, annNow.ID: true, bobEnded.ID: true}
	if err != nil || !maps.Equal(got, want) {
		t.Fatalf("HiddenGames: %v, %v; want %v", got, err, want)
	}
	if err := s.UnhidePlayer(ctx, console, ann.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := s.HiddenGames(ctx, []int64{annEnded.ID, annNow.ID, bobEnded.ID}); err != nil || !maps.Equal(got, map[int64]bool{bobEnded.ID: true}) {
		t.Fatalf("HiddenGames after unhide ann: %v, %v; want bob's game alone", got, err)
	}
}
