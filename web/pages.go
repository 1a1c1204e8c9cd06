package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// Bounds on what one page lists.
const (
	homeLimit    = 5   // players per size on the front page
	boardLimit   = 100 // players on a leaderboard page unless ?limit= says otherwise
	liveLimit    = 100 // games in play on /live, highest scores first
	recentLimit  = 20  // a player's recent games
	ratingsLimit = 100
)

// parsePages parses each page with the layout.
func parsePages() (map[string]*template.Template, error) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := make(map[string]*template.Template)
	for _, n := range names {
		if n == "templates/layout.html" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", n, err)
		}
		pages[n[len("templates/"):len(n)-len(".html")]] = t
	}
	return pages, nil
}

// page is what every template gets.
type page struct {
	Title string
	Nav   string // the section the page is in, for the navigation bar
	Data  any
	SSH   sshCommand // the footer's command to play
}

// render writes a page for r; the template runs into a buffer first, so
// that a failing template is a clean 500, not half a page.
func (s *Site) render(w http.ResponseWriter, r *http.Request, code int, name string, p page) {
	p.SSH = s.sshCommand(r)
	var b bytes.Buffer
	if err := s.pages[name].Execute(&b, p); err != nil {
		s.log.Error("web: render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(code)
	_, _ = w.Write(b.Bytes())
}

// writeJSON writes v as the scores command does: UTF-8 names unescaped.
func (s *Site) writeJSON(w http.ResponseWriter, code int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // names like "<3" stay readable; the type and nosniff keep it data
	if err := enc.Encode(v); err != nil {
		s.log.Error("web: encode json", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(code)
	_, _ = w.Write(b.Bytes())
}

// apiError is the JSON of a failed request.
type apiError struct {
	Error string `json:"error"`
}

func (s *Site) notFound(w http.ResponseWriter, r *http.Request, why string) {
	s.render(w, r, http.StatusNotFound, "error", page{Title: "Not found", Data: why})
}

func (s *Site) badRequest(w http.ResponseWriter, r *http.Request, why string) {
	s.render(w, r, http.StatusBadRequest, "error", page{Title: "Bad request", Data: why})
}

// failed reports a store error: logged with its detail, shown without.
func (s *Site) failed(w http.ResponseWriter, r *http.Request, what string, err error, api bool) {
	if errors.Is(err, context.Canceled) {
		// The client went away mid-request: nothing failed here.
		s.log.Debug("web: "+what, "err", err)
	} else {
		s.log.Error("web: "+what, "err", err)
	}
	if api {
		s.writeJSON(w, http.StatusInternalServerError, apiError{"could not read " + what + "; try again later"})
		return
	}
	s.render(w, r, http.StatusInternalServerError, "error", page{Title: "Error", Data: "Could not read the " + what + "; try again later."})
}

func readCtx(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), requestTimeout)
}

// sizeParam reads {size}: 3 to 8.
func sizeParam(r *http.Request) (int, error) {
	n, err := strconv.Atoi(r.PathValue("size"))
	if err != nil || n < engine.MinSize || n > engine.MaxSize {
		return 0, fmt.Errorf("the board size must be %d to %d", engine.MinSize, engine.MaxSize)
	}
	return n, nil
}

// kindParam reads {kind}: human, assisted or bot.
func kindParam(r *http.Request) (store.Kind, error) {
	k := store.Kind(r.PathValue("kind"))
	if !k.Valid() {
		return "", errors.New("the kind must be human, assisted or bot")
	}
	return k, nil
}

// idParam reads {id}: a positive integer.
func idParam(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, errors.New("not an id")
	}
	return id, nil
}

// limitParam reads ?limit=: 1 to wire.MaxScoresLimit, def when absent.
func limitParam(r *http.Request, def int) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > wire.MaxScoresLimit {
		return 0, fmt.Errorf("limit must be 1 to %d", wire.MaxScoresLimit)
	}
	return n, nil
}

// scoreEntries turns leaderboard rows into `scores --json` rows.
func scoreEntries(rows []store.Entry, size int, kind store.Kind) []wire.ScoreEntry {
	out := make([]wire.ScoreEntry, len(rows))
	for i, r := range rows {
		out[i] = wire.ScoreEntry{Rank: r.Rank, Name: r.Name, Player: store.ShortID(r.Fingerprint), Score: r.Score, MaxTile: r.MaxTile, Moves: r.Moves,
			Won: r.Won, Ended: r.Ended, GameID: r.GameID, Size: size, Kind: string(kind)}
	}
	return out
}

// --- leaderboards ---

// row is a leaderboard row as a page shows it: with a tag when its name
// looks like another on the same board, as the SSH side shows it.
type row struct {
	store.Entry
	Tag    string // store.LookAlikeTag of the player's short id, or ""
	Replay bool   // the game has ended and may be shown: its replay is linked
	Later  bool   // the game has ended, but it is of a day still on
}

// tagged tags the rows whose names look alike (store.LookAlikes), and links
// the replays of those that have ended, unless they are of a daily
// challenge still on (dailyOn).
func tagged(rows []store.Entry, dailyOn bool) []row {
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Name
	}
	alike := store.LookAlikes(names)
	out := make([]row, len(rows))
	for i, r := range rows {
		out[i] = row{Entry: r, Replay: r.Ended != nil && !dailyOn, Later: r.Ended != nil && dailyOn}
		if alike[i] {
			out[i].Tag = store.LookAlikeTag(store.ShortID(r.Fingerprint))
		}
	}
	return out
}

func entries(rows []row) []store.Entry {
	out := make([]store.Entry, len(rows))
	for i, r := range rows {
		out[i] = r.Entry
	}
	return out
}

type boardView struct {
	Size  int
	Kind  store.Kind
	Day   string // daily boards only
	Rows  []row
	Days  []string // daily: the days of the week before with games of this size, for links
	Today string
}

// earlierDays is how many days before it a daily page looks for games to
// link to.
const earlierDays = 7

type homeView struct {
	Boards []boardView
}

func (s *Site) home(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := readCtx(r)
	defer cancel()
	var v homeView
	for _, n := range sizes {
		rows, err := s.cfg.Games.Leaderboard(ctx, n, store.KindHuman, homeLimit)
		if err != nil {
			s.failed(w, r, "leaderboard", err, false)
			return
		}
		v.Boards = append(v.Boards, boardView{Size: n, Kind: store.KindHuman, Rows: tagged(rows, false)})
	}
	s.render(w, r, http.StatusOK, "home", page{Title: "ssh2048", Nav: "home", Data: v})
}

func (s *Site) leaderboard(r *http.Request) (boardView, int, error) {
	size, err := sizeParam(r)
	if err != nil {
		return boardView{}, http.StatusBadRequest, err
	}
	kind, err := kindParam(r)
	if err != nil {
		return boardView{}, http.StatusBadRequest, err
	}
	limit, err := limitParam(r, boardLimit)
	if err != nil {
		return boardView{}, http.StatusBadRequest, err
	}
	ctx, cancel := readCtx(r)
	defer cancel()
	rows, err := s.cfg.Games.Leaderboard(ctx, size, kind, limit)
	if err != nil {
		return boardView{}, http.StatusInternalServerError, err
	}
	return boardView{Size: size, Kind: kind, Rows: tagged(rows, false)}, http.StatusOK, nil
}

func (s *Site) scores(w http.ResponseWriter, r *http.Request) {
	v, code, err := s.leaderboard(r)
	switch {
	case code == http.StatusBadRequest:
		s.badRequest(w, r, err.Error())
	case err != nil:
		s.failed(w, r, "leaderboard", err, false)
	default:
		s.render(w, r, http.StatusOK, "scores", page{Title: fmt.Sprintf("Leaderboard %d×%d, %s", v.Size, v.Size, v.Kind), Nav: "scores", Data: v})
	}
}

func (s *Site) apiScores(w http.ResponseWriter, r *http.Request) {
	v, code, err := s.leaderboard(r)
	switch {
	case code == http.StatusBadRequest:
		s.writeJSON(w, code, apiError{err.Error()})
	case err != nil:
		s.failed(w, r, "leaderboard", err, true)
	default:
		s.writeJSON(w, http.StatusOK, scoreEntries(entries(v.Rows), v.Size, v.Kind))
	}
}

// dailyBoard reads a day's challenge board: ?day=YYYY-MM-DD, today by
// default; withDays: and which of the days before it have games of that
// size, for links (a day no one played, before the server existed or
// since, has nothing to show).
func (s *Site) dailyBoard(r *http.Request, withDays bool) (boardView, int, error) {
	size, err := sizeParam(r)
	if err != nil {
		return boardView{}, http.StatusBadRequest, err
	}
	limit, err := limitParam(r, boardLimit)
	if err != nil {
		return boardView{}, http.StatusBadRequest, err
	}
	today := s.cfg.Games.Today()
	day := r.URL.Query().Get("day")
	if day == "" {
		day = today
	}
	t, err := game.ParseDay(day)
	if err != nil {
		return boardView{}, http.StatusBadRequest, err
	}
	ctx, cancel := readCtx(r)
	defer cancel()
	rows, err := s.cfg.Games.DailyBoard(ctx, day, size, limit)
	if err != nil {
		return boardView{}, http.StatusInternalServerError, err
	}
	v := boardView{Size: size, Kind: store.KindHuman, Day: day, Rows: tagged(rows, day >= today), Today: today}
	for i := 1; withDays && i <= earlierDays; i++ {
		d := t.AddDate(0, 0, -i).Format("2006-01-02")
		played, err := s.cfg.Games.DailyBoard(ctx, d, size, 1)
		if err != nil {
			return boardView{}, http.StatusInternalServerError, err
		}
		if len(played) > 0 {
			v.Days = append(v.Days, d)
		}
	}
	return v, http.StatusOK, nil
}

func (s *Site) daily(w http.ResponseWriter, r *http.Request) {
	v, code, err := s.dailyBoard(r, true)
	switch {
	case code == http.StatusBadRequest:
		s.badRequest(w, r, err.Error())
	case err != nil:
		s.failed(w, r, "daily board", err, false)
	default:
		s.render(w, r, http.StatusOK, "daily", page{Title: fmt.Sprintf("Daily challenge %d×%d, %s", v.Size, v.Size, v.Day), Nav: "daily", Data: v})
	}
}

func (s *Site) apiDaily(w http.ResponseWriter, r *http.Request) {
	v, code, err := s.dailyBoard(r, false)
	switch {
	case code == http.StatusBadRequest:
		s.writeJSON(w, code, apiError{err.Error()})
	case err != nil:
		s.failed(w, r, "daily board", err, true)
	default:
		// The rows of `scores --daily --json`: the day's contest, and its
		// seed once the day is over, to verify its games with.
		seed := ""
		ctx, cancel := readCtx(r)
		defer cancel()
		switch n, err := s.cfg.Games.DailySeed(ctx, v.Day, v.Size); {
		case err == nil:
			seed = strconv.FormatUint(n, 10)
		case !errors.Is(err, game.ErrNotYet):
			s.failed(w, r, "daily seed", err, true)
			return
		}
		rows := scoreEntries(entries(v.Rows), v.Size, v.Kind)
		for i := range rows {
			rows[i].Contest, rows[i].Seed = "daily:"+v.Day, seed
		}
		s.writeJSON(w, http.StatusOK, rows)
	}
}

// --- races ---

type racesView struct {
	Ratings []store.RatingEntry
	Lobbies []lobbyView
}

type lobbyView struct {
	Size   int
	Phase  string
	Racers []race.Racer
}

var phaseNames = map[race.Phase]string{race.Waiting: "waiting", race.Countdown: "countdown", race.Running: "running", race.Finished: "finished"}

func (s *Site) racesData(r *http.Request) (racesView, error) {
	ctx, cancel := readCtx(r)
	defer cancel()
	ratings, err := s.cfg.Games.RatingBoard(ctx, ratingsLimit)
	if err != nil {
		return racesView{}, err
	}
	v := racesView{Ratings: ratings}
	if s.cfg.Races == nil {
		return v, nil
	}
	for _, l := range s.cfg.Races.Lobbies() {
		v.Lobbies = append(v.Lobbies, lobbyView{Size: l.Size, Phase: phaseNames[l.Phase], Racers: l.Racers})
	}
	return v, nil
}

func (s *Site) races(w http.ResponseWriter, r *http.Request) {
	v, err := s.racesData(r)
	if err != nil {
		s.failed(w, r, "race ratings", err, false)
		return
	}
	s.render(w, r, http.StatusOK, "races", page{Title: "Races", Nav: "races", Data: v})
}

// ratingJSON is one row of /api/races' ratings.
type ratingJSON struct {
	Rank      int     `json:"rank"`
	Name      string  `json:"name"`
	PlayerID  int64   `json:"player_id"`
	Rating    float64 `json:"rating"`
	Deviation float64 `json:"deviation"`
	Races     int     `json:"races"`
}

type racerJSON struct {
	Name   string `json:"name"`
	Player string `json:"player"` // short id, as in scores --json; "" for a guest
	Bot    bool   `json:"bot"`
	Score  int    `json:"score"`
	Over   bool   `json:"over"`
	Left   bool   `json:"left"` // forfeited: left with a move still possible, as in bot --race
	GameID int64  `json:"game_id"`
}

type lobbyJSON struct {
	Size   int         `json:"size"`
	Phase  string      `json:"phase"`
	Racers []racerJSON `json:"racers"`
}

func (s *Site) apiRaces(w http.ResponseWriter, r *http.Request) {
	v, err := s.racesData(r)
	if err != nil {
		s.failed(w, r, "race ratings", err, true)
		return
	}
	out := struct {
		Ratings []ratingJSON `json:"ratings"`
		Lobbies []lobbyJSON  `json:"lobbies"`
	}{Ratings: []ratingJSON{}, Lobbies: []lobbyJSON{}}
	for _, e := range v.Ratings {
		out.Ratings = append(out.Ratings, ratingJSON{e.Rank, e.Name, e.PlayerID, e.Rating.Rating, e.Deviation, e.Races})
	}
	for _, l := range v.Lobbies {
		lj := lobbyJSON{Size: l.Size, Phase: l.Phase, Racers: []racerJSON{}}
		for _, x := range l.Racers {
			lj.Racers = append(lj.Racers, racerJSON{x.Name, x.Key, x.Bot, x.Score, x.Over, x.Forfeit, x.GameID})
		}
		out.Lobbies = append(out.Lobbies, lj)
	}
	s.writeJSON(w, http.StatusOK, out)
}

// --- games in play ---

type liveGame struct {
	game.Snapshot
	Drawn board
}

// liveGames lists the games in play, highest score first, at most
// liveLimit, and how many there are in all.
func (s *Site) liveGames() ([]game.Snapshot, int) {
	snaps := s.cfg.Games.Live(0)
	slices.SortFunc(snaps, func(a, b game.Snapshot) int {
		if a.Score != b.Score {
			return b.Score - a.Score
		}
		return int(a.GameID - b.GameID)
	})
	return snaps[:min(len(snaps), liveLimit)], len(snaps)
}

func (s *Site) live(w http.ResponseWriter, r *http.Request) {
	snaps, total := s.liveGames()
	v := struct {
		Games []liveGame
		Total int
		SSH   sshCommand // to watch: ssh -t … watch NAME
	}{Total: total, SSH: s.sshCommand(r)}
	v.SSH.TTY = true
	for _, sn := range snaps {
		v.Games = append(v.Games, liveGame{Snapshot: sn, Drawn: drawBoard(sn.Board)})
	}
	s.render(w, r, http.StatusOK, "live", page{Title: "Games in play", Nav: "live", Data: v})
}

type liveJSON struct {
	GameID   int64   `json:"game_id"`
	Name     string  `json:"name"`
	PlayerID int64   `json:"player_id"`
	Player   string  `json:"player"` // short id, as in scores --json
	Size     int     `json:"size"`
	Kind     string  `json:"kind"`
	Score    int     `json:"score"`
	Moves    int     `json:"moves"`
	Won      bool    `json:"won"`
	Over     bool    `json:"over"`
	Board    [][]int `json:"board"`
}

func (s *Site) apiLive(w http.ResponseWriter, _ *http.Request) {
	snaps, _ := s.liveGames()
	out := make([]liveJSON, 0, len(snaps))
	for _, sn := range snaps {
		out = append(out, liveJSON{sn.GameID, sn.Player, sn.PlayerID, sn.Key, sn.Size, string(sn.Kind), sn.Score, sn.Moves, sn.Won, sn.Over, values(sn.Board)})
	}
	s.writeJSON(w, http.StatusOK, out)
}

// --- a player ---

type playerView struct {
	Player game.Player
	Key    string            // the short id
	Bests  []wire.ScoreEntry // best game per size and kind, with its rank (free play: none hidden)
	Recent []gameRow
}

// gameRow is one of a player's games as a page lists it.
type gameRow struct {
	store.GameSummary
	Replay bool // the game has ended and may be shown: its replay is linked
	Later  bool // the game has ended, but it is of a day still on
}

// dailyOn reports whether a game of contest is of a daily challenge whose
// day is not over: game.Service neither replays nor shows it (it answers
// game.ErrDailyOn), so the pages do not link it.
func (s *Site) dailyOn(contest string) bool {
	return game.DailyOn(contest, s.cfg.Games.Today())
}

// playerData is the page of player {id}; StatusMovedPermanently with the
// id alone of the account it is part of now when a link merged it away.
func (s *Site) playerData(r *http.Request) (playerView, int, error) {
	id, err := idParam(r)
	if err != nil {
		return playerView{}, http.StatusNotFound, err
	}
	ctx, cancel := readCtx(r)
	defer cancel()
	p, err := s.cfg.Games.PlayerByID(ctx, id)
	if merged := (*game.MergedError)(nil); errors.As(err, &merged) {
		return playerView{Player: game.Player{ID: merged.Into}}, http.StatusMovedPermanently, nil
	}
	if errors.Is(err, game.ErrNoPlayer) {
		return playerView{}, http.StatusNotFound, errors.New("there is no such player")
	}
	if err != nil {
		return playerView{}, http.StatusInternalServerError, err
	}
	v := playerView{Player: p, Key: store.ShortID(p.Fingerprint)}
	for _, n := range sizes {
		for _, k := range kinds {
			e, err := s.cfg.Games.Rank(ctx, p, n, k)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return playerView{}, http.StatusInternalServerError, err
			}
			v.Bests = append(v.Bests, scoreEntries([]store.Entry{e}, n, k)[0])
		}
	}
	recent, err := s.cfg.Games.PlayerGames(ctx, p, recentLimit)
	if err != nil {
		return playerView{}, http.StatusInternalServerError, err
	}
	for _, g := range recent {
		on := s.dailyOn(g.Contest)
		v.Recent = append(v.Recent, gameRow{GameSummary: g, Replay: g.EndedAt != nil && !on, Later: g.EndedAt != nil && on})
	}
	return v, http.StatusOK, nil
}

// movedTo answers a request for the page of an account a link merged
// away (playerData's StatusMovedPermanently) with the same route of the
// account it joined: links to the old page were shared, and a permanent
// redirect lets browsers and crawlers follow them for good.
func movedTo(w http.ResponseWriter, r *http.Request, route string, into int64) {
	http.Redirect(w, r, route+strconv.FormatInt(into, 10), http.StatusMovedPermanently)
}

func (s *Site) player(w http.ResponseWriter, r *http.Request) {
	v, code, err := s.playerData(r)
	switch {
	case code == http.StatusMovedPermanently:
		movedTo(w, r, "/player/", v.Player.ID)
	case code == http.StatusNotFound:
		s.notFound(w, r, "There is no such player.")
	case err != nil:
		s.failed(w, r, "player", err, false)
	default:
		s.render(w, r, http.StatusOK, "player", page{Title: shortName(v.Player.Name), Nav: "player", Data: v})
	}
}

type gameSummaryJSON struct {
	GameID  int64      `json:"game_id"`
	Size    int        `json:"size"`
	Kind    string     `json:"kind"`
	Score   int        `json:"score"`
	MaxTile int        `json:"max_tile"`
	Moves   int        `json:"moves"`
	Won     bool       `json:"won"`
	Contest string     `json:"contest"`
	Started time.Time  `json:"started"`
	Ended   *time.Time `json:"ended"`
}

func (s *Site) apiPlayer(w http.ResponseWriter, r *http.Request) {
	v, code, err := s.playerData(r)
	switch {
	case code == http.StatusMovedPermanently:
		movedTo(w, r, "/api/player/", v.Player.ID)
		return
	case code == http.StatusNotFound:
		s.writeJSON(w, code, apiError{"no such player"})
		return
	case err != nil:
		s.failed(w, r, "player", err, true)
		return
	}
	out := struct {
		PlayerID int64             `json:"player_id"`
		Name     string            `json:"name"`
		Player   string            `json:"player"` // short id, as in scores --json
		Bests    []wire.ScoreEntry `json:"bests"`
		Recent   []gameSummaryJSON `json:"recent"`
	}{PlayerID: v.Player.ID, Name: v.Player.Name, Player: v.Key, Bests: v.Bests, Recent: []gameSummaryJSON{}}
	if out.Bests == nil {
		out.Bests = []wire.ScoreEntry{}
	}
	for _, g := range v.Recent {
		out.Recent = append(out.Recent, gameSummaryJSON{g.ID, g.Size, string(g.Kind), g.Score, g.MaxTile, g.Moves, g.Won, g.Contest, g.StartedAt, g.EndedAt})
	}
	s.writeJSON(w, http.StatusOK, out)
}

// --- replays ---

// replayFor returns the replay of ended game id: 404 for a game that does
// not exist or is still in play (its future stays on the server), or is of
// a daily challenge whose day is not over (its tiles are everyone's that
// day). A 404 is the visitor's doing: never logged as an error.
func (s *Site) replayFor(r *http.Request) (*replayData, int, error) {
	id, err := idParam(r)
	if err != nil {
		return nil, http.StatusNotFound, errors.New("there is no such game")
	}
	if d := s.replays.get(id); d != nil {
		return d, http.StatusOK, nil
	}
	// The requests for one replay not cached share one build: a long
	// game's costs a replay of every move and its boards' bytes, once
	// however many ask at once (a link to a game that just ended, shared
	// widely). The build is not the first asker's to cancel.
	v, err, _ := s.replays.builds.Do(strconv.FormatInt(id, 10), func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), requestTimeout)
		defer cancel()
		return s.buildReplay(ctx, id)
	})
	var missing replayMissing
	switch {
	case errors.As(err, &missing):
		return nil, http.StatusNotFound, err
	case err != nil:
		return nil, http.StatusInternalServerError, err
	}
	return v.(*replayData), http.StatusOK, nil
}

// replayMissing is why a game has no replay to show: the visitor's
// doing, a 404.
type replayMissing struct{ error }

// buildReplay reads game id's replay, builds its pages' data and caches
// it.
func (s *Site) buildReplay(ctx context.Context, id int64) (*replayData, error) {
	rp, err := s.cfg.Games.Replay(ctx, id)
	switch {
	case errors.Is(err, game.ErrNoGame):
		return nil, replayMissing{errors.New("there is no such game")}
	case errors.Is(err, game.ErrDailyOn):
		return nil, replayMissing{errors.New("this game is of today's daily challenge: everyone plays the day on the same tiles, " +
			"so its replay opens once the day is over (at midnight UTC)")}
	case errors.Is(err, game.ErrRaceOn):
		return nil, replayMissing{errors.New("this game is of a race that may still be running: its racers share its tiles, " +
			"so its replay opens once the race is over")}
	case err != nil:
		return nil, err
	case !rp.Ended:
		return nil, replayMissing{errors.New("this game is still in play; its replay opens when it ends")}
	}
	d, err := newReplayData(rp)
	if err != nil {
		return nil, err
	}
	s.replays.put(id, d)
	return d, nil
}

func (s *Site) game(w http.ResponseWriter, r *http.Request) {
	d, code, err := s.replayFor(r)
	switch {
	case code == http.StatusNotFound:
		s.notFound(w, r, capitalize(err.Error())+".")
	case err != nil:
		s.failed(w, r, "game", err, false)
	default:
		ctx, cancel := readCtx(r)
		defer cancel()
		s.render(w, r, http.StatusOK, "game", page{Title: fmt.Sprintf("Game %d", d.info.GameID), Nav: "game",
			Data: gamePage{replayView: d.view, Review: s.reviewOf(ctx, d)}})
	}
}

func (s *Site) apiGame(w http.ResponseWriter, r *http.Request) {
	d, code, err := s.replayFor(r)
	switch {
	case code == http.StatusNotFound:
		s.writeJSON(w, code, apiError{err.Error()})
	case err != nil:
		s.failed(w, r, "game", err, true)
	default:
		w.Header().Set("Content-Type", "application/json")
		// An ended game never changes.
		w.Header().Set("Cache-Control", "public, max-age=86400, immutable")
		_, _ = w.Write(d.json)
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// apiIndex lists the JSON routes, for the footer's link to /api/.
func (s *Site) apiIndex(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "api", page{Title: "JSON API", Nav: "api"})
}
