package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
)

// link merges the account of from's key into into's, as `link CODE
// --merge` does.
func (w *world) link(t *testing.T, into, from game.Player) {
	t.Helper()
	ctx := context.Background()
	hash, ok := store.LinkCodeHash(store.NewLinkCode())
	if !ok {
		t.Fatal("a new link code does not read back")
	}
	if _, err := w.store.AddLinkCode(ctx, store.AccountID(into.ID), hash); err != nil {
		t.Fatal(err)
	}
	if _, err := w.store.Link(ctx, hash, from.Fingerprint, true); err != nil {
		t.Fatalf("%s's key joins %s's account: %v", from.Name, into.Name, err)
	}
}

// TestMergedPlayerMovedPermanently: the page of an account a link merged
// away, a link players have shared, answers 301 to the same route of the
// account it is part of now, through a chain of merges (ann into bob,
// then bob into cy: ann's page leads to cy's, in one step); an id never
// given is still 404.
func TestMergedPlayerMovedPermanently(t *testing.T) {
	w := newWorld(t)
	ts := w.site(t, Config{})
	ann, bob, cy := w.player(t, "ann"), w.player(t, "bob"), w.player(t, "cy")
	w.link(t, bob, ann)
	w.link(t, cy, bob)
	noFollow := *ts.Client()
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, route := range []string{"/player/", "/api/player/"} {
		for _, c := range []struct {
			what     string
			id       int64
			code     int
			location string
		}{
			{"ann's, merged into bob's, then bob's into cy's", ann.ID, http.StatusMovedPermanently, fmt.Sprint(route, cy.ID)},
			{"bob's, merged into cy's", bob.ID, http.StatusMovedPermanently, fmt.Sprint(route, cy.ID)},
			{"cy's, the account kept", cy.ID, http.StatusOK, ""},
			{"never given", cy.ID + 1000, http.StatusNotFound, ""},
		} {
			resp, err := noFollow.Get(fmt.Sprint(ts.URL, route, c.id))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.code || resp.Header.Get("Location") != c.location {
				t.Errorf("%s%d (%s): %d, Location %q; want %d, %q", route, c.id, c.what,
					resp.StatusCode, resp.Header.Get("Location"), c.code, c.location)
			}
		}
	}
	// A client that follows it lands on the account kept.
	resp, body := get(t, ts, fmt.Sprint("/api/player/", ann.ID))
	if want := fmt.Sprintf(`"player_id":%d`, cy.ID); resp.StatusCode != http.StatusOK || !strings.Contains(body, want) {
		t.Errorf("following /api/player/%d: %d %.300s; want 200 and %s", ann.ID, resp.StatusCode, body, want)
	}
}
