package moderation

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// fixedBans is a store whose bans are a list; it has no other ability.
type fixedBans struct {
	store.Moderator
	bans []store.Ban
}

func (f *fixedBans) Bans(context.Context, time.Time) ([]store.Ban, error) { return f.bans, nil }

// manyBans is n bans, a tenth of them ranges, none of them 192.0.2.1 or
// the key "SHA256:free".
func manyBans(n int) *fixedBans {
	f := &fixedBans{}
	for i := range n {
		b := store.Ban{Kind: store.BanKey, Target: fmt.Sprintf("SHA256:banned-%d", i)}
		if i%10 == 0 {
			b = store.Ban{Kind: store.BanCIDR, Target: fmt.Sprintf("10.%d.%d.0/24", i/256%256, i%256)}
		}
		f.bans = append(f.bans, b)
	}
	return f
}

// TestBanListChecks: ranges hold their addresses (IPv4-mapped too), keys
// and players their own, a player's the keys of its account too, and a
// ban that ran out since the list was read holds no more.
func TestBanListChecks(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	f := &fixedBans{bans: []store.Ban{
		{ID: 1, Kind: store.BanCIDR, Target: "10.0.0.0/8"},
		{ID: 2, Kind: store.BanCIDR, Target: "2001:db8::/32", Until: now.Add(time.Hour)},
		{ID: 3, Kind: store.BanKey, Target: "SHA256:bad"},
		{ID: 4, Kind: store.BanPlayer, Target: "7", PlayerID: 7, Until: now.Add(time.Minute), ShowReason: true, Reason: "spam",
			Keys: []string{"SHA256:desk", "SHA256:laptop"}},
		{ID: 5, Kind: store.BanCIDR, Target: "10.1.0.0/16", Until: now.Add(time.Minute)},
		{ID: 6, Kind: store.BanCIDR, Target: "192.0.2.0/24", Until: now.Add(time.Minute)},
	}}
	l, err := NewBanList(context.Background(), f, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.now = func() time.Time { return now }
	for addr, want := range map[string]int64{"10.1.2.3": 1, "::ffff:10.1.2.3": 1, "11.0.0.1": 0, "2001:db8::5": 2, "2001:db9::5": 0} {
		b, ok := l.Address(netip.MustParseAddr(addr))
		if ok != (want != 0) || b.ID != want {
			t.Errorf("Address(%s) = %d %v, want %d", addr, b.ID, ok, want)
		}
	}
	if b, ok := l.Key("SHA256:bad"); !ok || b.ID != 3 {
		t.Errorf("Key(bad) = %+v %v", b, ok)
	}
	if _, ok := l.Key("SHA256:good"); ok {
		t.Error("a key no one banned is banned")
	}
	b, ok := l.Player(7)
	if !ok || Line(b) != "ssh2048: you are banned from this server until 2026-11-27 12:01 UTC: spam." {
		t.Errorf("Player(7) = %+v %v, line %q", b, ok, Line(b))
	}
	for key, want := range map[string]int64{"SHA256:laptop": 4, "SHA256:desk": 4, "SHA256:bad": 0, "SHA256:good": 0} {
		if b, ok := l.Account(key); ok != (want != 0) || b.ID != want {
			t.Errorf("Account(%s) = %d %v, want %d", key, b.ID, ok, want)
		}
	}
	now = now.Add(2 * time.Minute)
	if _, ok := l.Player(7); ok {
		t.Error("a ban that ran out still holds")
	}
	if _, ok := l.Account("SHA256:laptop"); ok {
		t.Error("a ban that ran out still holds on its account's keys")
	}
	if _, ok := l.Address(netip.MustParseAddr("2001:db8::5")); !ok {
		t.Error("a ban still in force was dropped")
	}
	// A narrower range that ran out leaves the wider one in force.
	if b, ok := l.Address(netip.MustParseAddr("10.1.2.3")); !ok || b.ID != 1 {
		t.Errorf("10.1.2.3 after its /16 ran out: %d %v, want the /8", b.ID, ok)
	}
	if _, ok := l.Address(netip.MustParseAddr("192.0.2.9")); ok {
		t.Error("a range ban that ran out still holds")
	}
}

// BenchmarkBanListCheck is what a login costs for its bans with a
// thousand of them held: its address against the ranges, and its key
// and player.
//
//	go test -run '^$' -bench BanListCheck ./moderation/
func BenchmarkBanListCheck(b *testing.B) {
	for _, n := range []int{0, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			l, err := NewBanList(context.Background(), manyBans(n), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			addr := netip.MustParseAddr("192.0.2.1")
			for b.Loop() {
				_, x := l.Address(addr)
				_, y := l.Key("SHA256:free")
				_, z := l.Player(12345)
				if x || y || z {
					b.Fatal("banned")
				}
			}
		})
	}
}

// TestBanListOnBan: those OnBan registered are told of a reading that
// finds a ban the last one had not (a new ban, or a target banned again),
// or a key on a banned account it had not (the key's account merged
// into the banned one as it was banned), not of one that finds the same
// bans or fewer, nor once stopped.
func TestBanListOnBan(t *testing.T) {
	f := &fixedBans{bans: []store.Ban{{ID: 1, Kind: store.BanKey, Target: "SHA256:a"}}}
	l, err := NewBanList(context.Background(), f, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	told := 0
	stop := l.OnBan(func() { told++ })
	steps := []struct {
		name string
		bans []int64
		want int // times told so far
	}{
		{"the same bans", []int64{1}, 0},
		{"a new ban", []int64{1, 2}, 1},
		{"one lifted", []int64{2}, 1},
		{"none", nil, 1},
		{"banned again, a new ban", []int64{3}, 2},
	}
	for _, s := range steps {
		f.bans = nil
		for _, id := range s.bans {
			f.bans = append(f.bans, store.Ban{ID: id, Kind: store.BanKey, Target: fmt.Sprintf("SHA256:%d", id)})
		}
		if err := l.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		if told != s.want {
			t.Fatalf("%s: told %d times, want %d", s.name, told, s.want)
		}
	}
	for _, s := range []struct {
		name string
		keys []string
		want int
	}{
		{"a player banned", []string{"SHA256:desk"}, 3},
		{"the same keys", []string{"SHA256:desk"}, 3},
		{"a key joined the banned account", []string{"SHA256:desk", "SHA256:laptop"}, 4},
		{"a key left it", []string{"SHA256:laptop"}, 4},
	} {
		f.bans = []store.Ban{{ID: 5, Kind: store.BanPlayer, Target: "7", PlayerID: 7, Keys: s.keys}}
		if err := l.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		if told != s.want {
			t.Fatalf("%s: told %d times, want %d", s.name, told, s.want)
		}
	}
	stop()
	f.bans = append(f.bans, store.Ban{ID: 6, Kind: store.BanKey, Target: "SHA256:6"})
	if err := l.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if told != 4 {
		t.Fatalf("told %d times after stop, want 4", told)
	}
}
