package game

import (
	"testing"

	"github.com/ssh2048/ssh2048/store"
)

// TestOneWriter checks the one-writer bookkeeping without a store: who is
// revoked, who is told, and that nothing is left behind.
func TestOneWriter(t *testing.T) {
	svc := New(nil, nil)
	var told []string
	session := func(name string) *Seat {
		return svc.Seat(Player{ID: 1}, func(error) { told = append(told, name) })
	}
	a, b := session("a"), session("b")
	human := gameKey{player: 1, size: 4, kind: store.KindHuman}
	open := func(st *Seat, k gameKey) *Play {
		p := &Play{seat: st, key: k}
		svc.claim(p)
		st.plays = append(st.plays, p)
		return p
	}
	holder := func(k gameKey) *Play { return svc.holders[k] }

	pa := open(a, human)
	pb := open(b, human)
	if !pa.revoked || pb.revoked || holder(human) != pb || len(told) != 1 || told[0] != "a" {
		t.Fatalf("takeover: a revoked %v, b revoked %v, told %v", pa.revoked, pb.revoked, told)
	}
	pa.Close() // a stale Play's Close must not release b's hold
	if holder(human) != pb {
		t.Fatal("stale Close released the newer holder")
	}

	pb2 := open(b, human) // the same session reopens: quiet
	if !pb.revoked || len(told) != 1 || holder(human) != pb2 {
		t.Fatalf("reopen in the same session: told %v", told)
	}

	// An assisted game held by a; b's game becomes assisted and takes over.
	assisted := gameKey{player: 1, size: 4, kind: store.KindAssisted}
	pa2 := open(a, assisted)
	svc.rekey(pb2, store.KindAssisted)
	if holder(human) != nil || holder(assisted) != pb2 || !pa2.revoked || len(told) != 2 || told[1] != "a" {
		t.Fatalf("rekey: holders %v, told %v", svc.holders, told)
	}

	a.Close()
	b.Close()
	if len(svc.holders) != 0 || len(a.plays)+len(b.plays) != 0 {
		t.Fatalf("left behind: holders %v, plays %d+%d", svc.holders, len(a.plays), len(b.plays))
	}
}
