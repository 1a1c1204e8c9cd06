package sqlite

import "testing"

// TestUpsertFallbackName: a name that sanitizes to nothing is stored as
// its fallback, and a later clean name replaces it on the same player.
func TestUpsertFallbackName(t *testing.T) {
	s := openStore(t)
	p, err := s.UpsertPlayer(t.Context(), "SHA256:AbCdEfGhIj", "ssh-ed25519", "\x1b[2J")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "player-AbCdEf" {
		t.Fatalf("name = %q, want player-AbCdEf", p.Name)
	}
	p2, err := s.UpsertPlayer(t.Context(), "SHA256:AbCdEfGhIj", "ssh-ed25519", "\u202ezed")
	if err != nil {
		t.Fatal(err)
	}
	if p2.ID != p.ID || p2.Name != "zed" || !p2.FirstSeen.Equal(p.FirstSeen) || !p2.LastSeen.After(p.LastSeen) {
		t.Fatalf("second upsert = %+v, first %+v", p2, p)
	}
}
