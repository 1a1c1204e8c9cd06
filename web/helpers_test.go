package web

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

var quiet = slog.New(slog.DiscardHandler)

// world is a real store and game service with players and games in it.
type world struct {
	store *sqlite.Store
	svc   *game.Service
	dir   string // the store's data directory
}

func newWorld(t *testing.T) *world {
	t.Helper()
	dir := t.TempDir()
	store, err := sqlite.Open(context.Background(), dir, sqlite.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return &world{store: store, svc: game.New(store, quiet), dir: dir}
}

// legacyName gives p a name as players had before accounts (issue 32):
// held by no one, so another player's may look like it, as old data may.
func (w *world) legacyName(t *testing.T, p game.Player, name string) {
	t.Helper()
	db, err := sql.Open("sqlite3", filepath.Join(w.dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM player_names WHERE player_id = ?`, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE players SET name = ?, name_key = NULL WHERE id = ?`, name, p.ID); err != nil {
		t.Fatal(err)
	}
}

// player identifies a player by a made-up key.
func (w *world) player(t *testing.T, name string) game.Player {
	t.Helper()
	p, err := w.svc.Identify(context.Background(), "SHA256:"+name+"-key-fingerprint-for-tests", "ssh-ed25519", name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// playDaily plays p's attempt at the day's challenge of size on svc (whose
// clock says which day it is) until it is over, and returns its id.
func playDaily(t *testing.T, svc *game.Service, p game.Player, size int) int64 {
	t.Helper()
	ctx := context.Background()
	seat := svc.Seat(p, nil)
	defer seat.Close()
	play, err := seat.OpenDaily(ctx, size)
	if err != nil {
		t.Fatal(err)
	}
	for !play.Over() {
		for _, d := range []engine.Direction{engine.Left, engine.Down, engine.Right, engine.Up} {
			res, err := play.Move(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			if res.Moved {
				break
			}
		}
	}
	return play.ID()
}

// play plays a game of p with moves in turn (up, right, down, left,
// skipping those that change nothing) until it is over, or for at most
// limit moves when limit > 0; the game stays open (in play) when it is not
// over. It returns the game's id.
func (w *world) play(t *testing.T, p game.Player, size int, kind store.Kind, limit int) int64 {
	t.Helper()
	ctx := context.Background()
	seat := w.svc.Seat(p, nil)
	play, err := seat.Open(ctx, size, kind, true)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; !play.Over() && (limit == 0 || n < limit); n++ {
		for _, d := range []engine.Direction{engine.Left, engine.Down, engine.Right, engine.Up} {
			res, err := play.Move(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			if res.Moved {
				break
			}
		}
	}
	id := play.ID()
	if play.Over() {
		seat.Close()
	} else {
		t.Cleanup(seat.Close)
	}
	return id
}

// site is the web site over w (or over cfg.Games, when set), as a test
// server.
func (w *world) site(t *testing.T, cfg Config) *httptest.Server {
	t.Helper()
	if cfg.Games == nil {
		cfg.Games = w.svc
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts
}

// get fetches path and returns the response and its body.
func get(t *testing.T, ts *httptest.Server, path string) (*http.Response, string) {
	t.Helper()
	return do(t, ts, http.MethodGet, path, nil)
}

func do(t *testing.T, ts *httptest.Server, method, path string, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}
