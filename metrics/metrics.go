// Package metrics is what an operator's Prometheus sees of a running
// ssh2048: connections and refusals, sessions, moves and the database's
// group commits, the latency from a key to its frame, spectators and
// races, the AI's queue and searches, and the web pages' requests.
//
// The parts of the server do not import this package: each names what it
// can tell in its own terms (server.Observer, store.Observer, the AI pool's
// WithSearchObserver, and counts read at scrape time from the game
// service, the server and the pool), and a Metrics is all of those at
// once. Every metric lives in the Metrics' own registry, never the
// process-wide default, so two servers in one test process do not share
// counts.
//
// No label value comes from a client: refusal reasons, session kinds, AI
// priorities, database operations and web handlers are fixed sets named
// by the server. A label holding a player's name or address would let
// any client grow the set of series without bound.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
)

// namespace prefixes every metric of ssh2048's own.
const namespace = "ssh2048"

// latencyBuckets are for waits a player feels, from half a millisecond
// (a frame with nothing queued) to seconds (a stalled disk).
var latencyBuckets = []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2.5, 5}

// Metrics holds every collector. Its methods are safe for concurrent use;
// a nil *Metrics records nothing.
type Metrics struct {
	reg *prometheus.Registry

	refused        *prometheus.CounterVec
	sessionsOpen   *prometheus.GaugeVec
	sessionsTotal  *prometheus.CounterVec
	keyToFrame     prometheus.Histogram
	movesCommitted prometheus.Counter
	commitSeconds  prometheus.Histogram
	groupSize      prometheus.Histogram
	writeSeconds   prometheus.Histogram
	dbErrors       *prometheus.CounterVec
	aiSearch       *prometheus.HistogramVec
	httpRequests   *prometheus.CounterVec
	httpLimited    prometheus.Counter
	httpRefused    *prometheus.CounterVec
}

// New returns the metrics, registered with a registry of their own
// together with the Go runtime's and the process's collectors.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "connections_refused_total",
			Help: "Connections turned away, by the limit they hit: before the handshake full (--max-conns), rate (--conn-rate-per-ip), unauthenticated (--max-unauth-per-ip), per_56 (--max-conns-per-56), reserve (the key holders' reserve); at login per_ip (--max-conns-per-ip), guests.",
		}, []string{"reason"}),
		sessionsOpen: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Name: "sessions_open",
			Help: "SSH sessions open now, by kind: game (the game screen), an exec command (scores, bot, …), unknown (a command the server does not have) or none.",
		}, []string{"kind"}),
		sessionsTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "sessions_total",
			Help: "SSH sessions opened, by kind (as ssh2048_sessions_open).",
		}, []string{"kind"}),
		keyToFrame: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Name: "keystroke_to_frame_seconds",
			Help:    "From a key's arrival at a game screen to the end of the write of the frame that shows it (its move committed first); keys that change nothing on screen are not counted.",
			Buckets: latencyBuckets,
		}),
		movesCommitted: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "moves_committed_total",
			Help: "Moves stored durably (acknowledged to a player or bot).",
		}),
		commitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "db", Name: "commit_duration_seconds",
			Help:    "One group commit of the database writer, from BEGIN to the end of COMMIT (its fsync included).",
			Buckets: latencyBuckets,
		}),
		groupSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "db", Name: "commit_group_size",
			Help:    "Writes (moves, game starts and ends, players) committed together in one group commit.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 11), // 1 … 1024, the writer's largest group
		}),
		writeSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "db", Name: "write_duration_seconds",
			Help:    "One write as its caller waits for it: from being queued to the writer until its group has committed.",
			Buckets: latencyBuckets,
		}),
		dbErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "db", Name: "errors_total",
			Help: "Database operations that failed (not a player's conflict), by operation: begin, write, commit, checkpoint, ping.",
		}, []string{"op"}),
		aiSearch: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "ai", Name: "search_duration_seconds",
			Help:    "One search of the AI pool, by priority: hint or autoplay.",
			Buckets: latencyBuckets,
		}, []string{"priority"}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests answered, by handler (the page's route, not its URL) and status code.",
		}, []string{"handler", "code"}),
		httpLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "http", Name: "requests_limited_total",
			Help: "HTTP requests refused with 429 by the per-address request limit.",
		}),
		httpRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "http", Name: "connections_refused_total",
			Help: "HTTP connections closed as soon as accepted, by the cap they were over: full (all addresses), per_ip.",
		}, []string{"reason"}),
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.refused, m.sessionsOpen, m.sessionsTotal, m.keyToFrame, m.movesCommitted,
		m.commitSeconds, m.groupSize, m.writeSeconds, m.dbErrors, m.aiSearch,
		m.httpRequests, m.httpLimited, m.httpRefused,
	)
	// The reasons and priorities are known: export them at zero from the
	// start, so that a rate() over them has a series before the first one.
	for _, r := range []string{"full", "rate", "unauthenticated", "per_56", "reserve", "per_ip", "guests"} {
		m.refused.WithLabelValues(r)
	}
	for _, r := range []string{"full", "per_ip"} {
		m.httpRefused.WithLabelValues(r)
	}
	for _, p := range []ai.Priority{ai.Hint, ai.Autoplay, ai.Review} {
		m.aiSearch.WithLabelValues(p.String())
	}
	for _, op := range []string{"begin", "write", "commit", "checkpoint", "ping"} {
		m.dbErrors.WithLabelValues(op)
	}
	return m
}

// Registry is where the metrics are registered, for a test to gather.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in Prometheus' exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		// A failing collector leaves a gap, not a failed scrape.
		ErrorHandling: promhttp.ContinueOnError,
		// Scrapes in flight at once; more wait their turn rather than
		// each gathering every metric at the same time.
		MaxRequestsInFlight: 4,
		Timeout:             10 * time.Second,
	})
}

// Sources are the counts read when Prometheus scrapes. Each is optional.
type Sources struct {
	Connections func() int        // open connections (server.Server.Connections)
	Games       func() game.Stats // games in play, spectators (game.Service.Stats)
	Races       func() race.Stats // races by phase, rooms (race.Hall.Stats)
	AIQueue     func() (hints, autoplays int)
}

// Watch registers the scrape-time counts of src.
func (m *Metrics) Watch(src Sources) {
	if src.Connections != nil {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: namespace, Name: "connections_open",
			Help: "TCP connections open now, logged in or not.",
		}, func() float64 { return float64(src.Connections()) }))
	}
	if src.Games != nil {
		m.reg.MustRegister(&gameCollector{stats: src.Games})
	}
	if src.Races != nil {
		m.reg.MustRegister(&raceCollector{stats: src.Races})
	}
	if src.AIQueue != nil {
		m.reg.MustRegister(&queueCollector{queued: src.AIQueue})
	}
}

// --- server.Observer ---

// Refused counts a connection turned away.
func (m *Metrics) Refused(reason string) {
	if m != nil {
		m.refused.WithLabelValues(reason).Inc()
	}
}

// SessionOpened counts a session in.
func (m *Metrics) SessionOpened(kind string) {
	if m != nil {
		m.sessionsOpen.WithLabelValues(kind).Inc()
		m.sessionsTotal.WithLabelValues(kind).Inc()
	}
}

// SessionClosed counts a session out.
func (m *Metrics) SessionClosed(kind string) {
	if m != nil {
		m.sessionsOpen.WithLabelValues(kind).Dec()
	}
}

// KeyToFrame records a key's latency to its frame.
func (m *Metrics) KeyToFrame(took time.Duration) {
	if m != nil {
		m.keyToFrame.Observe(took.Seconds())
	}
}

// --- store.Observer ---

// Committed records a group commit.
func (m *Metrics) Committed(writes int, took time.Duration) {
	if m != nil {
		m.groupSize.Observe(float64(writes))
		m.commitSeconds.Observe(took.Seconds())
	}
}

// Waited records one write's wait.
func (m *Metrics) Waited(took time.Duration) {
	if m != nil {
		m.writeSeconds.Observe(took.Seconds())
	}
}

// MoveStored counts a committed move.
func (m *Metrics) MoveStored() {
	if m != nil {
		m.movesCommitted.Inc()
	}
}

// Failed counts a database error.
func (m *Metrics) Failed(op string) {
	if m != nil {
		m.dbErrors.WithLabelValues(op).Inc()
	}
}

// --- the AI pool ---

// Searched records one search of the AI pool (ai.WithSearchObserver).
func (m *Metrics) Searched(prio ai.Priority, took time.Duration) {
	if m != nil {
		m.aiSearch.WithLabelValues(prio.String()).Observe(took.Seconds())
	}
}

// --- the web pages ---

// Request counts an HTTP request answered; handler is the route's name.
func (m *Metrics) Request(handler string, code int) {
	if m != nil {
		m.httpRequests.WithLabelValues(handler, strconv.Itoa(code)).Inc()
	}
}

// Limited counts an HTTP request refused by the per-address limit.
func (m *Metrics) Limited() {
	if m != nil {
		m.httpLimited.Inc()
	}
}

// ConnRefused counts an HTTP connection closed as soon as accepted, over
// a cap: reason is "full" or "per_ip".
func (m *Metrics) ConnRefused(reason string) {
	if m != nil {
		m.httpRefused.WithLabelValues(reason).Inc()
	}
}

// gameCollector reads the game service's counts once per scrape.
type gameCollector struct{ stats func() game.Stats }

var (
	playingDesc = prometheus.NewDesc(namespace+"_games_in_play", "Games held by a session now (guests' games not counted).", nil, nil)
	watchDesc   = prometheus.NewDesc(namespace+"_spectators", "Spectators watching a game now.", nil, nil)
	racesDesc   = prometheus.NewDesc(namespace+"_races", "Races not yet finished, by phase: waiting, countdown, running.", []string{"phase"}, nil)
	roomsDesc   = prometheus.NewDesc(namespace+"_race_rooms", "Private race rooms open now.", nil, nil)
	queueDesc   = prometheus.NewDesc(namespace+"_ai_queue_length", "Requests waiting for an AI worker now, by priority: hint or autoplay.", []string{"priority"}, nil)
)

func (c *gameCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- playingDesc
	ch <- watchDesc
}

func (c *gameCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.stats()
	ch <- prometheus.MustNewConstMetric(playingDesc, prometheus.GaugeValue, float64(st.Playing))
	ch <- prometheus.MustNewConstMetric(watchDesc, prometheus.GaugeValue, float64(st.Spectators))
}

// raceCollector reads the races' counts once per scrape.
type raceCollector struct{ stats func() race.Stats }

func (c *raceCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- racesDesc
	ch <- roomsDesc
}

func (c *raceCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.stats()
	for phase, name := range []string{race.Waiting: "waiting", race.Countdown: "countdown", race.Running: "running"} {
		ch <- prometheus.MustNewConstMetric(racesDesc, prometheus.GaugeValue, float64(st.Races[phase]), name)
	}
	ch <- prometheus.MustNewConstMetric(roomsDesc, prometheus.GaugeValue, float64(st.Rooms))
}

// queueCollector reads the AI pool's queue once per scrape.
type queueCollector struct{ queued func() (int, int) }

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- queueDesc }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	hints, autoplays := c.queued()
	ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(hints), "hint")
	ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(autoplays), "autoplay")
}
