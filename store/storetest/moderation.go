package storetest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// console is the actor of the tests' actions: an operator offline.
var console = store.Action{Actor: "console:test", Reason: "a test"}

// actor is the action of an admin player.
func actor(p store.Player, reason string) store.Action {
	return store.Action{ActorID: p.ID, Actor: p.Name, Reason: reason}
}

// auditActions is the audit log's actions and targets, in order.
func auditActions(t *testing.T, s Store) []string {
	t.Helper()
	rows, err := s.Audit(context.Background(), time.Time{}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.Action+" "+r.Target)
	}
	return out
}

func testAdmins(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann := addPlayer(t, s, "ann")
	bob := addPlayer(t, s, "bob")
	// A key of the file that never played becomes a player, and ann's
	// name is left as she chose it.
	keys := []store.AdminKey{{Fingerprint: ann.Fingerprint, KeyType: "ssh-ed25519", Comment: "root@box"},
		{Fingerprint: "SHA256:newcomer", KeyType: "ssh-ed25519", Comment: "ops"}}
	if err := s.SyncAdminKeys(ctx, keys); err != nil {
		t.Fatal(err)
	}
	admins, err := s.Admins(ctx)
	if err != nil || len(admins) != 2 || !admins[0].ByFile || !admins[1].ByFile {
		t.Fatalf("admins after the file: %+v, %v", admins, err)
	}
	if p, err := s.FindPlayer(ctx, ann.Fingerprint); err != nil || p.Name != "ann" {
		t.Fatalf("ann after the file: %+v, %v: her name must stay", p, err)
	}
	if ok, err := s.IsAdmin(ctx, bob.ID); err != nil || ok {
		t.Fatalf("bob is an admin: %v, %v", ok, err)
	}
	if err := s.Grant(ctx, actor(ann, "helps"), bob.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(ctx, actor(ann, "again"), bob.ID); !errors.Is(err, store.ErrExists) {
		t.Fatalf("second grant: %v, want ErrExists", err)
	}
	if ok, err := s.IsAdmin(ctx, bob.ID); err != nil || !ok {
		t.Fatalf("bob after the grant: %v, %v", ok, err)
	}
	if err := s.Revoke(ctx, actor(bob, "coup"), ann.ID); !errors.Is(err, store.ErrByFile) {
		t.Fatalf("revoke of a file admin: %v, want ErrByFile", err)
	}
	if err := s.Grant(ctx, console, 999999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("grant to nobody: %v, want ErrNotFound", err)
	}
	// The file emptied: its admins go, bob's grant stays, and he is the
	// last admin, whom no one can revoke.
	if err := s.SyncAdminKeys(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.IsAdmin(ctx, ann.ID); ok {
		t.Fatal("ann is still an admin after leaving the file")
	}
	if err := s.Revoke(ctx, console, bob.ID); !errors.Is(err, store.ErrLastAdmin) {
		t.Fatalf("revoke of the last admin: %v, want ErrLastAdmin", err)
	}
	if err := s.Revoke(ctx, console, ann.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoke of no admin: %v, want ErrNotFound", err)
	}
	if got, want := strings.Join(auditActions(t, s), "; "), "grant player #"+itoa(bob.ID); got != want {
		t.Fatalf("audit %q, want %q", got, want)
	}
}

func testBans(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	admin, eve, mallory := addPlayer(t, s, "ada"), addPlayer(t, s, "eve"), addPlayer(t, s, "mallory")
	if err := s.SyncAdminKeys(ctx, []store.AdminKey{{Fingerprint: admin.Fingerprint, KeyType: "ssh-ed25519"}}); err != nil {
		t.Fatal(err)
	}
	by := actor(admin, "spam")
	week := time.Now().Add(7 * 24 * time.Hour).Truncate(time.Microsecond)
	for _, c := range []struct {
		spec store.BanSpec
		want error
	}{
		{store.BanSpec{Kind: store.BanPlayer, Target: itoa(eve.ID), PlayerID: eve.ID, Until: week, ShowReason: true}, nil},
		{store.BanSpec{Kind: store.BanPlayer, Target: itoa(eve.ID), PlayerID: eve.ID}, store.ErrExists},
		{store.BanSpec{Kind: store.BanKey, Target: "SHA256:never-played"}, nil},
		{store.BanSpec{Kind: store.BanCIDR, Target: "127.0.0.64/26"}, nil},
		{store.BanSpec{Kind: store.BanKey, Target: admin.Fingerprint}, store.ErrSelf},
		{store.BanSpec{Kind: store.BanPlayer, Target: "424242", PlayerID: 424242}, store.ErrNotFound},
	} {
		_, err := s.Ban(ctx, by, c.spec)
		if !errors.Is(err, c.want) {
			t.Fatalf("Ban(%+v): %v, want %v", c.spec, err, c.want)
		}
	}
	// Banning the only admin leaves no one to lift it.
	if _, err := s.Ban(ctx, console, store.BanSpec{Kind: store.BanPlayer, Target: itoa(admin.ID), PlayerID: admin.ID}); !errors.Is(err, store.ErrLastAdmin) {
		t.Fatalf("ban of the last admin: %v, want ErrLastAdmin", err)
	}
	// A ban that has run out holds no more, and the target can be banned again.
	if _, err := s.Ban(ctx, by, store.BanSpec{Kind: store.BanKey, Target: mallory.Fingerprint, Until: time.Now().Add(-time.Second)}); err != nil {
		t.Fatal(err)
	}
	bans, err := s.Bans(ctx, time.Now())
	if err != nil || len(bans) != 3 {
		t.Fatalf("bans in force: %+v, %v; want eve, the key and the range", bans, err)
	}
	eveBan := bans[2]
	if eveBan.Kind != store.BanPlayer || eveBan.PlayerID != eve.ID || eveBan.Name != "eve" || !eveBan.Until.Equal(week) ||
		!eveBan.ShowReason || eveBan.Reason != "spam" || eveBan.By != "ada" {
		t.Fatalf("eve's ban: %+v", eveBan)
	}
	if p := bans[0].Prefix(); bans[0].Kind != store.BanCIDR || p.String() != "127.0.0.64/26" {
		t.Fatalf("range ban: %+v", bans[0])
	}
	if _, err := s.Ban(ctx, by, store.BanSpec{Kind: store.BanKey, Target: mallory.Fingerprint}); err != nil {
		t.Fatalf("ban after an expired one: %v", err)
	}
	if _, err := s.Unban(ctx, by, store.BanPlayer, itoa(eve.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Unban(ctx, by, store.BanPlayer, itoa(eve.ID)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second unban: %v, want ErrNotFound", err)
	}
	d, err := s.PlayerDetail(ctx, eve.ID)
	if err != nil || d.Banned || len(d.Bans) != 1 || len(d.Actions) != 2 {
		t.Fatalf("eve's detail: %+v, %v: want one lifted ban and its two audit rows", d, err)
	}
	want := []string{"ban player #" + itoa(eve.ID), "ban key SHA256:never-played", "ban cidr 127.0.0.64/26",
		"ban key " + mallory.Fingerprint, "ban key " + mallory.Fingerprint, "unban player #" + itoa(eve.ID)}
	if got := auditActions(t, s); strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("audit:\n got %q\nwant %q", got, want)
	}
}

// testConcurrentBans: admins banning one player at once each get an
// answer: one ban, the others ErrExists, one audit row.
func testConcurrentBans(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	eve := addPlayer(t, s, "eve")
	const admins = 8
	errs := make([]error, admins)
	var wg sync.WaitGroup
	for i := range admins {
		wg.Go(func() {
			_, errs[i] = s.Ban(ctx, store.Action{ActorID: 0, Actor: "admin" + itoa(int64(i)), Reason: "race"},
				store.BanSpec{Kind: store.BanPlayer, Target: itoa(eve.ID), PlayerID: eve.ID})
		})
	}
	wg.Wait()
	banned := 0
	for _, err := range errs {
		switch {
		case err == nil:
			banned++
		case !errors.Is(err, store.ErrExists):
			t.Fatalf("concurrent ban: %v", err)
		}
	}
	if banned != 1 {
		t.Fatalf("%d bans succeeded, want 1", banned)
	}
	if got := auditActions(t, s); len(got) != 1 {
		t.Fatalf("audit %q, want one ban", got)
	}
}

// boardScores is the human 4×4 board: each player's name and best score,
// checked against PlayerRank (the rank buckets) as it goes.
func boardScores(t *testing.T, s Store) string {
	t.Helper()
	ctx := context.Background()
	rows, err := s.Leaderboard(ctx, 4, store.KindHuman, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range rows {
		r, err := s.PlayerRank(ctx, e.PlayerID, 4, store.KindHuman)
		if err != nil || r.Rank != e.Rank || r.GameID != e.GameID {
			t.Fatalf("rank of %s: %+v, %v; the board says %+v", e.Name, r, err, e)
		}
		out = append(out, e.Name+":"+itoa(int64(e.Score)))
	}
	return strings.Join(out, " ")
}

func testHide(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	sc := newScripted(t, b, s)
	ann, bob, cat := addPlayer(t, s, "ann"), addPlayer(t, s, "bob"), addPlayer(t, s, "cat")
	annBest := sc.game(ann, 4, store.KindHuman)
	sc.score(annBest, 900)
	annNext := sc.game(ann, 4, store.KindHuman) // ends annBest
	sc.score(annNext, 300)
	sc.score(sc.game(bob, 4, store.KindHuman), 500)
	sc.score(sc.game(cat, 4, store.KindHuman), 100)
	if got, want := boardScores(t, s), "ann:900 bob:500 cat:100"; got != want {
		t.Fatalf("board %q, want %q", got, want)
	}
	// annNext was played a moment ago: in play.
	if err := s.HideGame(ctx, console, annNext.ID); !errors.Is(err, store.ErrInPlay) {
		t.Fatalf("hide of a game in play: %v, want ErrInPlay", err)
	}
	if err := s.HideGame(ctx, console, 987654); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("hide of no game: %v, want ErrNotFound", err)
	}
	if err := s.HideGame(ctx, console, annBest.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.HideGame(ctx, console, annBest.ID); !errors.Is(err, store.ErrExists) {
		t.Fatalf("second hide: %v, want ErrExists", err)
	}
	// Her best falls back to her next game, and the ranks follow.
	if got, want := boardScores(t, s), "bob:500 ann:300 cat:100"; got != want {
		t.Fatalf("board after hiding ann's best: %q, want %q", got, want)
	}
	if full, err := s.FullGame(ctx, annBest.ID); err != nil || full.Score != 900 {
		t.Fatalf("a hidden game is stored still: %+v, %v", full.GameSummary, err)
	}
	if err := s.UnhideGame(ctx, console, annBest.ID); err != nil {
		t.Fatal(err)
	}
	if got, want := boardScores(t, s), "ann:900 bob:500 cat:100"; got != want {
		t.Fatalf("board after unhide: %q, want %q", got, want)
	}
	if err := s.UnhideGame(ctx, console, annBest.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unhide of a game not hidden: %v, want ErrNotFound", err)
	}

	// A hidden player leaves the board with every game, those to come too.
	if err := s.HidePlayer(ctx, console, bob.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.HidePlayer(ctx, console, bob.ID); !errors.Is(err, store.ErrExists) {
		t.Fatalf("second hide of bob: %v, want ErrExists", err)
	}
	if got, want := boardScores(t, s), "ann:900 cat:100"; got != want {
		t.Fatalf("board with bob hidden: %q, want %q", got, want)
	}
	// A game he starts now is hidden from its start: its moves rank nowhere.
	sc.score(sc.game(bob, 4, store.KindHuman), 5000)
	if got, want := boardScores(t, s), "ann:900 cat:100"; got != want {
		t.Fatalf("board with bob hidden: %q, want %q", got, want)
	}
	if _, err := s.PlayerRank(ctx, bob.ID, 4, store.KindHuman); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("rank of hidden bob: %v, want ErrNotFound", err)
	}
	d, err := s.PlayerDetail(ctx, bob.ID)
	if err != nil || !d.Hidden || len(d.HiddenGames) != 2 {
		t.Fatalf("bob's detail: %+v, %v", d, err)
	}
	if err := s.UnhideGame(ctx, console, d.HiddenGames[0]); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("unhide of a game of a hidden player: %v, want ErrInvalid", err)
	}
	// Contest boards leave hidden games out too.
	const day = "daily:2026-11-27"
	for _, p := range []store.Player{ann, bob} {
		g, err := s.OpenContestGame(ctx, p.ID, 4, store.KindHuman, day, 42)
		if err != nil {
			t.Fatal(err)
		}
		sc.score(g, int(p.ID)*10)
	}
	if board, err := s.ContestBoard(ctx, day, 4, 10); err != nil || len(board) != 1 || board[0].PlayerID != ann.ID {
		t.Fatalf("daily board with bob hidden: %+v, %v", board, err)
	}
	if err := s.UnhidePlayer(ctx, console, bob.ID); err != nil {
		t.Fatal(err)
	}
	if got, want := boardScores(t, s), "bob:5000 ann:900 cat:100"; got != want {
		t.Fatalf("board with bob back: %q, want %q", got, want)
	}
	if err := s.UnhidePlayer(ctx, console, bob.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unhide of bob again: %v, want ErrNotFound", err)
	}
}

func testRenameAndFind(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann := addPlayer(t, s, "ann")
	twin := addPlayer(t, s, "twin")
	twin2 := addPlayer(t, s, "twin-b")
	// A connection's user name names only a new account: twin2 stays twin-b.
	if _, err := s.UpsertPlayer(ctx, twin2.Fingerprint, "ssh-ed25519", "twin"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ref  string
		want int64
		err  error
	}{
		{"#" + itoa(ann.ID), ann.ID, nil},
		{itoa(ann.ID), ann.ID, nil},
		{ann.Fingerprint, ann.ID, nil},
		{"ann", ann.ID, nil},
		{"twin", twin.ID, nil},
		{"TW1N", twin.ID, nil}, // by its name key, as a claim compares names
		{"nobody", 0, store.ErrNotFound},
		{"#999999", 0, store.ErrNotFound},
	} {
		p, err := s.FindPlayer(ctx, c.ref)
		if !errors.Is(err, c.err) || p.ID != c.want {
			t.Errorf("FindPlayer(%q) = #%d, %v; want #%d, %v", c.ref, p.ID, err, c.want, c.err)
		}
	}
	lock := time.Now().Add(time.Hour)
	if p, err := s.Rename(ctx, console, ann.ID, "Anna", lock); err != nil || p.Name != "Anna" {
		t.Fatalf("rename: %+v, %v", p, err)
	}
	// The name is the account's in the names' table: a claim of it, or of
	// a look-alike, by another account is refused.
	if _, err := s.ClaimName(ctx, store.AccountID(twin.ID), "ANNA"); !errors.Is(err, store.ErrNameTaken) {
		t.Fatalf("another account claims the renamed name: %v, want ErrNameTaken", err)
	}
	// The lock holds against the player's own claims.
	if _, err := s.ClaimName(ctx, store.AccountID(ann.ID), "ann-again"); !errors.Is(err, store.ErrNameLocked) {
		t.Fatalf("her own claim during the lock: %v, want ErrNameLocked", err)
	}
	if a, err := s.Account(ctx, store.AccountID(ann.ID)); err != nil || a.Name != "Anna" || !a.NameLockedUntil.Equal(lock.Truncate(time.Microsecond)) {
		t.Fatalf("account during the lock: %+v, %v", a, err)
	}
	for _, c := range []struct {
		id   int64
		name string
		want error
	}{
		{ann.ID, "Anna\x1b[31m", store.ErrNameInvalid},
		{ann.ID, "\x1b[0m", store.ErrNameInvalid},
		{ann.ID, "tw1n", store.ErrNameTaken}, // a look-alike of twin's
		{999999, "x", store.ErrNotFound},
	} {
		if _, err := s.Rename(ctx, console, c.id, c.name, time.Time{}); !errors.Is(err, c.want) {
			t.Errorf("Rename(#%d, %q): %v, want %v", c.id, c.name, err, c.want)
		}
	}
	if _, err := s.Rename(ctx, console, ann.ID, "Anna", time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if a, err := s.ClaimName(ctx, store.AccountID(ann.ID), "ann-again"); err != nil || a.Name != "ann-again" {
		t.Fatalf("her own claim after the lock: %+v, %v", a, err)
	}
	found, err := s.SearchPlayers(ctx, "TWIN", 10)
	if err != nil || len(found) != 2 {
		t.Fatalf("search: %+v, %v", found, err)
	}
	d, err := s.PlayerDetail(ctx, ann.ID)
	if err != nil || len(d.Keys) != 1 || d.Keys[0].Fingerprint != ann.Fingerprint || len(d.Names) != 3 || d.Names[0].Name != "ann-again" ||
		!d.Names[0].Released.IsZero() || d.Names[1].Released.IsZero() {
		t.Fatalf("player detail: keys %+v, names %+v, %v; want her key, and ann-again, Anna and ann newest first", d.Keys, d.Names, err)
	}
	audit, err := s.Audit(ctx, time.Now().Add(-time.Hour), 10)
	if err != nil || len(audit) != 2 || audit[0].Action != "rename" || !strings.Contains(audit[0].Detail, "locked until") ||
		audit[0].Actor != "console:test" || audit[0].Reason != "a test" {
		t.Fatalf("audit of the renames: %+v, %v", audit, err)
	}
	if later, err := s.Audit(ctx, time.Now().Add(time.Hour), 10); err != nil || len(later) != 0 {
		t.Fatalf("audit since an hour from now: %+v, %v", later, err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
