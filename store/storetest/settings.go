package storetest

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/ssh2048/ssh2048/store"
)

// testSettingsAreKeptPerPlayer: a setting is kept for its player only,
// across a reopen; setting it again replaces it, its default removes it,
// and a key or value the contract does not know is refused with
// ErrInvalid, writing nothing.
func testSettingsAreKeptPerPlayer(t *testing.T, b Backend) {
	ctx := context.Background()
	s, reopen := b.Open(t, quiet)
	ann, bob := addPlayer(t, s, "ann"), addPlayer(t, s, "bob")
	want := func(s Store, p store.Player, want map[string]string) {
		t.Helper()
		got, err := s.Settings(ctx, p.ID)
		if err != nil {
			t.Fatalf("Settings(%s): %v", p.Name, err)
		}
		if !maps.Equal(got, want) {
			t.Errorf("Settings(%s) = %v, want %v", p.Name, got, want)
		}
	}
	set := func(p store.Player, key, value string) {
		t.Helper()
		if err := s.SetSetting(ctx, p.ID, key, value); err != nil {
			t.Fatalf("SetSetting(%s, %q, %q): %v", p.Name, key, value, err)
		}
	}
	want(s, ann, map[string]string{})
	set(ann, store.SettingTheme, "light")
	set(ann, store.SettingTheme, "Colour-Blind") // replaces, stored as the contract spells it
	set(ann, store.SettingMotion, "off")
	set(bob, store.SettingScreen, "reader")
	for _, bad := range []struct{ key, value string }{
		{"theme", "purple"},
		{"volume", "11"},
		{"motion", "off\x1b[2J"},
	} {
		if err := s.SetSetting(ctx, ann.ID, bad.key, bad.value); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("SetSetting(%q, %q) = %v, want ErrInvalid", bad.key, bad.value, err)
		}
	}
	want(s, ann, map[string]string{"theme": "colour-blind", "motion": "off"})
	want(s, bob, map[string]string{"screen": "reader"})

	s.Close()
	s, err := reopen()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want(s, ann, map[string]string{"theme": "colour-blind", "motion": "off"})
	if err := s.SetSetting(ctx, ann.ID, store.SettingMotion, "on"); err != nil { // the default
		t.Fatal(err)
	}
	if err := s.SetSetting(ctx, ann.ID, store.SettingTheme, ""); err != nil {
		t.Fatal(err)
	}
	want(s, ann, map[string]string{})
	want(s, bob, map[string]string{"screen": "reader"})
}

// testMergeKeepsSettings: a key that joins an account with its games
// brings its settings where the account has none of its own; the
// account's own stay.
func testMergeKeepsSettings(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, desk := addPlayer(t, s, "ann"), addPlayer(t, s, "desk")
	playSome(t, s, desk.ID, 4, 3)
	for _, set := range []struct {
		p          store.Player
		key, value string
	}{{ann, store.SettingTheme, "light"}, {desk, store.SettingTheme, "colour-blind"}, {desk, store.SettingMotion, "off"}} {
		if err := s.SetSetting(ctx, set.p.ID, set.key, set.value); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Link(ctx, linkCode(t, s, ann.ID), desk.Fingerprint, true); err != nil {
		t.Fatalf("Link with merge: %v", err)
	}
	got, err := s.Settings(ctx, ann.ID)
	if want := map[string]string{"theme": "light", "motion": "off"}; err != nil || !maps.Equal(got, want) {
		t.Errorf("the account's settings after the merge: %v, %v; want %v", got, err, want)
	}
}
