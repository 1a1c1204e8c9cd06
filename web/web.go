// Package web is ssh2048 on the web, beside the SSH server: a public,
// read-only site of the leaderboards (every size; human, assisted, bot,
// the daily challenge and the race ratings), each player's best games,
// the games in play, and a replay of any ended game drawn in HTML and CSS
// with the original game's colours; the same data as JSON for scripts
// (the leaderboards as `scores --json` prints them); and the operator's
// endpoints: /metrics for Prometheus, /healthz and /readyz for balancers.
//
// Pages are rendered on the server (html/template) and work without
// JavaScript; two small files served from the same origin are scripts:
// the replay player, and /live's, which reads the page again every few
// seconds. Every page's footer gives the command to play here, with the
// SSH port the server listens on (Config.SSHPort) and the host the
// visitor reached the site by. The replay's boards are rebuilt on the server
// (game.Service.Replay), and only for games that have ended: a game's
// seed, which tells every tile to come, never leaves the server, and
// neither does the future of a game still in play.
//
// What a hostile client could do to the site, and what stops it:
//   - Names are players' free text. They come sanitized from the store
//     (no control characters, bounded width), are cut to maxNameRunes
//     here, escaped by html/template, isolated in <bdi> so right-to-left
//     text cannot reorder the page around them, and shown with the key
//     tag that tells two players of one name apart. A strict
//     Content-Security-Policy (scripts and styles from this origin only,
//     no inline script, no plugins, no framing) means even a name that
//     got through as markup could run nothing.
//   - The Host header is the client's too: the footer's command repeats
//     it only when it is plainly a host name or an IP address (sshHost),
//     else it says "this host"; the leaderboards' cache keeps a page per
//     such host.
//   - Nothing writes: every route is GET (and HEAD); anything else is 405.
//   - Each address gets a token bucket of requests (limit.go); a flood
//     from one address gets 429s and costs little. X-Forwarded-For is
//     believed from the configured proxies only (Config.TrustedProxies),
//     never from a peer just because it is on loopback.
//   - Every connection has read, write and idle timeouts, and the open
//     connections are capped, all of them and each address's, idle
//     keep-alive ones included (server.go): a client that sends its
//     request slowly (slowloris), never reads its answer or just keeps
//     its connections open holds them for seconds, not for ever, and one
//     address cannot hold them all. Over a cap a connection is closed at
//     once rather than queued behind the others.
//   - /static/ serves its files and lists no folder.
//   - The operator's endpoints can have a listener of their own (Ops),
//     which a flood of the site's does not reach.
package web

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"path"
	"strings"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/store"
)

// Games is what the site reads; *game.Service implements it. Every
// method only reads.
type Games interface {
	Leaderboard(ctx context.Context, size int, kind store.Kind, limit int) ([]store.Entry, error)
	DailyBoard(ctx context.Context, day string, size, limit int) ([]store.Entry, error)
	// DailySeed is a day's seed of one size, once the day is over
	// (game.ErrNotYet before).
	DailySeed(ctx context.Context, day string, size int) (uint64, error)
	Today() string
	RatingBoard(ctx context.Context, limit int) ([]store.RatingEntry, error)
	Live(size int) []game.Snapshot
	PlayerByID(ctx context.Context, id int64) (game.Player, error)
	Rank(ctx context.Context, p game.Player, size int, kind store.Kind) (store.Entry, error)
	PlayerGames(ctx context.Context, p game.Player, limit int) ([]store.GameSummary, error)
	Replay(ctx context.Context, id int64) (*game.Replay, error)
}

// Races is what the site reads of the races; *race.Hall implements it.
type Races interface {
	Lobbies() []race.View
}

// Observer is told of each request, for metrics; handler is the route's
// name, never its URL.
type Observer interface {
	Request(handler string, code int)
	Limited()
	// ConnRefused is told of a connection closed by NewListener over a
	// cap: reason is "full" or "per_ip".
	ConnRefused(reason string)
}

// Config configures the site.
type Config struct {
	Games Games // required
	Races Races // the races in the public lobbies; nil: none listed
	// Metrics serves /metrics; nil: 404.
	Metrics http.Handler
	// Ready reports whether the service can take players: the database
	// answers and the SSH server accepts. nil: always ready.
	Ready    func(ctx context.Context) error
	Observer Observer     // nil: no one
	Logger   *slog.Logger // nil: slog.Default()
	// RatePerIP and BurstPerIP bound each address's requests: RatePerIP a
	// second, bursts of BurstPerIP. RatePerIP 0: no limit.
	RatePerIP  float64
	BurstPerIP int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is
	// believed (clientAddr); none by default, loopback included.
	TrustedProxies []netip.Prefix
	// SSHPort is the port the SSH server listens on, for the command the
	// pages give to play (ssh -p PORT HOST); 0 means DefaultSSHPort.
	SSHPort int
}

// DefaultSSHPort is the SSH port of `ssh2048 serve` unless --listen says
// otherwise.
const DefaultSSHPort = 23234

// Defaults of the per-address request limit: a person browsing makes a
// request or two a second (a page, its stylesheet, the replay's script
// and data); a script reading the JSON a few.
const (
	DefaultRatePerIP  = 20
	DefaultBurstPerIP = 40
)

// requestTimeout bounds the database reads behind one page.
const requestTimeout = 5 * time.Second

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Site is the web site: an http.Handler.
type Site struct {
	cfg     Config
	log     *slog.Logger
	obs     Observer
	pages   map[string]*template.Template
	limit   *limiter
	replays *replayCache
	boards  *pageCache // leaderboards, rendered, for pageTTL
	mux     *http.ServeMux
}

// New returns the site.
func New(cfg Config) (*Site, error) {
	if cfg.Games == nil {
		return nil, errors.New("web: Config.Games is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.SSHPort == 0 {
		cfg.SSHPort = DefaultSSHPort
	}
	if cfg.SSHPort < 0 || cfg.SSHPort > 65535 {
		return nil, fmt.Errorf("web: SSH port %d: want 1 to 65535", cfg.SSHPort)
	}
	if !(cfg.RatePerIP >= 0) || math.IsInf(cfg.RatePerIP, 1) || (cfg.RatePerIP > 0 && cfg.BurstPerIP < 1) { // NaN would be no limit
		return nil, fmt.Errorf("web: request limit %v/s, burst %d: want a rate of 0 (off) or a finite number more and a burst of 1 or more", cfg.RatePerIP, cfg.BurstPerIP)
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	s := &Site{cfg: cfg, log: cfg.Logger, obs: cfg.Observer, pages: pages, replays: newReplayCache(), boards: newPageCache()}
	if s.obs == nil {
		s.obs = nopObserver{}
	}
	if cfg.RatePerIP > 0 {
		s.limit = newLimiter(cfg.RatePerIP, cfg.BurstPerIP)
	}
	s.routes()
	return s, nil
}

type nopObserver struct{}

func (nopObserver) Request(string, int) {}
func (nopObserver) Limited()            {}
func (nopObserver) ConnRefused(string)  {}

// routes lists every route. Each has a name for metrics; the patterns
// are GET only (GET matches HEAD too), so anything else gets 405.
func (s *Site) routes() {
	s.mux = http.NewServeMux()
	handle := func(pattern, name string, h http.HandlerFunc) {
		s.mux.Handle(pattern, s.wrap(name, true, h))
	}
	// The leaderboards are read most and change least in a second:
	// they are served from a cache for pageTTL (cache.go).
	handle("GET /{$}", "home", s.boards.cached(s.home))
	handle("GET /scores/{size}/{kind}", "scores", s.boards.cached(s.scores))
	handle("GET /daily/{size}", "daily", s.boards.cached(s.daily))
	handle("GET /races", "races", s.races)
	handle("GET /live", "live", s.live)
	handle("GET /player/{id}", "player", s.player)
	handle("GET /game/{id}", "game", s.game)
	handle("GET /api/{$}", "api", s.apiIndex)
	handle("GET /api/scores/{size}/{kind}", "api_scores", s.boards.cached(s.apiScores))
	handle("GET /api/daily/{size}", "api_daily", s.boards.cached(s.apiDaily))
	handle("GET /api/races", "api_races", s.apiRaces)
	handle("GET /api/live", "api_live", s.apiLive)
	handle("GET /api/player/{id}", "api_player", s.apiPlayer)
	handle("GET /api/game/{id}", "api_game", s.apiGame)
	static, _ := fs.Sub(staticFS, "static")
	handle("GET /static/", "static", s.staticFiles(static))
	handle("GET /static", "static", func(w http.ResponseWriter, r *http.Request) {
		s.notFound(w, r, "There is no such page.")
	})
	s.probes(s.mux)
	if s.cfg.Metrics != nil {
		handle("GET /metrics", "metrics", s.cfg.Metrics.ServeHTTP)
	}
	handle("/", "not_found", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "read-only: GET and HEAD only", http.StatusMethodNotAllowed)
			return
		}
		s.notFound(w, r, "There is no such page.")
	})
}

// probes adds /healthz and /readyz to mux. They are never rate-limited:
// balancers probe often, from few addresses.
func (s *Site) probes(mux *http.ServeMux) {
	mux.Handle("GET /healthz", s.wrap("healthz", false, s.healthz))
	mux.Handle("GET /readyz", s.wrap("readyz", false, s.readyz))
}

// Ops is the operator's endpoints alone, for a listener of their own
// (serve --metrics): /healthz, /readyz, and metrics on /metrics unless
// nil; anything else is 404. None is rate-limited. On a listener of its
// own they answer while the site's connections are all taken, which is
// when they are needed.
func (s *Site) Ops(metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	s.probes(mux)
	if metrics != nil {
		mux.Handle("GET /metrics", s.wrap("metrics", false, metrics.ServeHTTP))
	}
	mux.Handle("/", s.wrap("not_found", false, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not found: /metrics, /healthz and /readyz only", http.StatusNotFound)
	}))
	return mux
}

// staticFiles serves the files of fsys, and no directory: a request for
// one, /static/ itself included, answers 404 rather than a listing.
func (s *Site) staticFiles(fsys fs.FS) http.HandlerFunc {
	files := http.StripPrefix("/static", http.FileServerFS(fsys))
	return func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/static/")
		if fi, err := fs.Stat(fsys, name); err != nil || fi.IsDir() {
			s.notFound(w, r, "There is no such page.")
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	}
}

// ServeHTTP serves the site.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// csp allows scripts, styles, images and fetches from this origin only:
// no inline script or style, no plugins, no <base>, no framing. The
// scripts (the replay player, /live's refresher) are files in /static/.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// wrap is every route's middleware: the per-address limit (if limited),
// the security headers, the request count, and a recover that turns a
// panic into a 500 for this request only.
func (s *Site) wrap(name string, limited bool, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		hdr.Set("Content-Security-Policy", csp)
		hdr.Set("X-Content-Type-Options", "nosniff")
		hdr.Set("X-Frame-Options", "DENY")
		hdr.Set("Referrer-Policy", "no-referrer")
		hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
		if limited && s.limit != nil && !s.limit.allow(clientAddr(r, s.cfg.TrustedProxies), time.Now()) {
			s.obs.Limited()
			hdr.Set("Retry-After", "1")
			http.Error(w, "too many requests from your address; slow down", http.StatusTooManyRequests)
			s.obs.Request(name, http.StatusTooManyRequests)
			return
		}
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("web: panic", "handler", name, "panic", v)
				if !rec.wrote {
					http.Error(rec, "internal error", http.StatusInternalServerError)
				}
			}
			s.obs.Request(name, rec.code)
		}()
		h(rec, r)
	})
}

// statusRecorder remembers the status code written.
type statusRecorder struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(p []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(p)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (s *Site) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintln(w, "ok")
}

func (s *Site) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if s.cfg.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := s.cfg.Ready(ctx); err != nil {
			// The reason goes to the operator's log, not to whoever asks.
			s.log.Warn("web: not ready", "err", err)
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready")
			return
		}
	}
	fmt.Fprintln(w, "ready")
}
