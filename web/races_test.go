package web

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/race"
)

// TestRaceLobbies: the races waiting in the public lobbies, read from
// the server's races (Config.Races), are listed on /races and
// /api/races with their racers; a site without races lists none.
func TestRaceLobbies(t *testing.T) {
	w := newWorld(t)
	races := race.New(w.svc, race.WithTimes(time.Hour, time.Hour, time.Minute))
	for _, name := range []string{"ann", "bob"} {
		seat := w.svc.Seat(w.player(t, name), nil)
		t.Cleanup(seat.Close)
		tk, err := races.Join(context.Background(), seat, netip.Addr{}, "", 5, false)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tk.Leave)
	}
	ts := w.site(t, Config{Races: races})
	if _, body := get(t, ts, "/api/races"); !containsAll(body, `"lobbies":[{"size":5,"phase":"countdown","racers":[{"name":"ann"`, `{"name":"bob"`) {
		t.Errorf("/api/races: %s", body)
	}
	if _, body := get(t, ts, "/races"); !containsAll(body, "ann", "bob") {
		t.Errorf("/races lists no lobby:\n%s", body)
	}
	if _, body := get(t, w.site(t, Config{}), "/api/races"); !containsAll(body, `"lobbies":[]`) {
		t.Errorf("/api/races without races: %s", body)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
