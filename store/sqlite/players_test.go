package sqlite

import "testing"

// TestUpsertFallbackName: a new account whose user name sanitizes to
// nothing is given a generated name, and a later connection with a clean
// user name does not rename it: the name is the account's.
func TestUpsertFallbackName(t *testing.T) {
	s := openStore(t)
	p, err := s.UpsertPlayer(t.Context(), "SHA256:AbCdEfGhIj", "ssh-ed25519", "\x1b[2J")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Name) != len("player-0000") || p.Name[:7] != "player-" {
		t.Fatalf("name = %q, want player- and four hex digits", p.Name)
	}
	p2, err := s.UpsertPlayer(t.Context(), "SHA256:AbCdEfGhIj", "ssh-ed25519", "\u202ezed")
	if err != nil {
		t.Fatal(err)
	}
	if p2.ID != p.ID || p2.Name != p.Name || !p2.FirstSeen.Equal(p.FirstSeen) || !p2.LastSeen.After(p.LastSeen) {
		t.Fatalf("second upsert = %+v, first %+v", p2, p)
	}
}
