package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/metrics"
	"github.com/ssh2048/ssh2048/moderation"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/admission"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/sqlite"
	gossh "golang.org/x/crypto/ssh"
)

// shutdownBudget is how long sessions get to say goodbye after SIGTERM;
// with the store's flush the process exits well within 10 s.
const shutdownBudget = 7 * time.Second

// durabilities maps --durability to the store's setting.
var durabilities = map[string]sqlite.Durability{"power": sqlite.PowerSafe, "crash": sqlite.CrashSafe}

// minRaceLength is the shortest --race-length: short races are for trying
// a server out, and for tests of several nodes.
const minRaceLength = 5 * time.Second

// defaultReviewShare is --review-share's default: a quarter of a core, so
// that on the smallest machine (two cores) reviews never take a player's.
const defaultReviewShare = 0.25

// serveConfig is the serve subcommand's flags.
type serveConfig struct {
	listen      string
	data        string
	database    string // postgres://… : the shared store of several nodes; "" for SQLite under data
	hostKey     string // "" for <data>/ssh_host_ed25519_key
	proxyFrom   string // trusted balancers, as --proxy-protocol-from lists them
	limits      admission.Limits
	durability  string
	logFormat   string
	logLevel    slog.Level
	http        httpConfig
	ai          bool    // hints and autoplay on the game screen
	motion      bool    // moves slide and merges pop on the player's own screen
	motionMax   int     // the most screens open with motion
	reviewShare float64 // of a core, the most the AI's reviews take
	pprof       string  // loopback address for net/http/pprof; "" none
	raceLength  time.Duration
	adminKeys   string           // an authorized_keys file of the admins; "" none (the admins stay as they were)
	blocked     string           // a file of words no name may hold; "" none
	moderation  *moderationFiles // what the two files above hold; nil: neither given
}

// moderationFiles is what --admin-keys and --blocked-names hold, read
// with the flags (a file that cannot be read is a mistake in its flag).
type moderationFiles struct {
	keys    []store.AdminKey
	blocked moderation.Blocklist
}

// parseServe reads the flags, each with an environment fallback.
func parseServe(args []string, stdout, stderr io.Writer) (serveConfig, int, bool) {
	c := serveConfig{limits: admission.DefaultLimits()}
	fs := newFlagSet("serve", "usage: ssh2048 [serve] [flags]\n\n"+
		"Runs the SSH server until SIGTERM or SIGINT. Flags (environment fallback in\n"+
		"brackets):", stdout, stderr)
	fs.StringVar(&c.listen, "listen", ":23234", "address to listen on")
	fs.StringVar(&c.data, "data", stateDirectory(),
		"directory for the database and the host key (default $STATE_DIRECTORY, else ./data)")
	// SSH2048_DATABASE_URL is the name operators of PostgreSQL expect;
	// SSH2048_DATABASE, the flag's own fallback, wins over it.
	fs.StringVar(&c.database, "database", os.Getenv("SSH2048_DATABASE_URL"),
		"PostgreSQL URL (postgres://user@host/db) of a database shared by several nodes (default $SSH2048_DATABASE_URL); empty: SQLite under --data")
	fs.StringVar(&c.hostKey, "host-key", "",
		"host key file (created if missing); nodes behind one balancer share one, so that players see one server (default <data>/"+server.HostKeyFile+")")
	fs.StringVar(&c.proxyFrom, "proxy-protocol-from", "",
		"addresses or CIDR prefixes of trusted balancers (comma-separated): their connections start with a PROXY protocol header (v1 or v2) naming the real client")
	c.limits.Flags(fs.FlagSet)
	fs.BoolVar(&c.ai, "ai", true, "the AI's hints (i) and autoplay (p) on the game screen; --ai=false turns them off")
	fs.BoolVar(&c.motion, "motion", true, "a move slides its tiles and pops its merges on the player's own game screen (a few frames, then the board at rest); --motion=false draws the board at rest only")
	fs.Float64Var(&c.reviewShare, "review-share", defaultReviewShare,
		"of one core, the most the AI's reviews of games take, so that they never slow the players' keys (0 < share <= 1; 1: a whole pool worker)")
	fs.IntVar(&c.motionMax, "motion-screens", server.DefaultMotionScreens,
		"with more screens than this open at once no screen draws motion, nor for a moment after a motion frame came late")
	fs.StringVar(&c.durability, "durability", "power",
		"when a move is durable: power (it survives a power cut too; an fsync per commit) or crash (it survives the process being killed, not a power cut)")
	fs.StringVar(&c.logFormat, "log-format", "text", "log format on stderr: text or json")
	fs.TextVar(&c.logLevel, "log-level", slog.LevelInfo, "debug, info, warn or error")
	c.http.flags(fs.FlagSet)
	fs.StringVar(&c.pprof, "pprof", "",
		"serve Go's profiler (net/http/pprof) on this loopback address, e.g. 127.0.0.1:6060; off when empty")
	fs.DurationVar(&c.raceLength, "race-length", race.DefaultTime,
		fmt.Sprintf("a race's length unless its room's host picks another (%v to %v; hosts pick from %v, or this if shorter)",
			minRaceLength, race.MaxTime, race.MinTime))
	fs.StringVar(&c.adminKeys, "admin-keys", "",
		"authorized_keys file of the admins, who may run `ssh HOST admin …` (docs/moderation.md); kept in step at each start; empty: the admins stay as they are")
	fs.StringVar(&c.blocked, "blocked-names", "",
		"file of words, one a line, that no player's name may hold (compared as look-alike names are); empty: none")
	if code, ok := parse(fs, args); !ok {
		return c, code, false
	}
	// Every flag is checked here, before serve makes a directory, a
	// database or a host key, or logs anything: a mistake is one line and
	// status 2, not a data directory left behind and status 1.
	if err := checkListenAddr("listen", c.listen); err != nil {
		fmt.Fprintf(stderr, "ssh2048 serve: %v\n", err)
		return c, 2, false
	}
	if err := checkDatabaseURL(c.database); err != nil {
		fmt.Fprintf(stderr, "ssh2048 serve: %v\n", err)
		return c, 2, false
	}
	if !(c.reviewShare > 0 && c.reviewShare <= 1) {
		fmt.Fprintf(stderr, "ssh2048 serve: --review-share %v: must be more than 0 and at most 1\n", c.reviewShare)
		return c, 2, false
	}
	if c.motionMax < 0 {
		fmt.Fprintf(stderr, "ssh2048 serve: --motion-screens %d: must be 0 or more\n", c.motionMax)
		return c, 2, false
	}
	if c.raceLength < minRaceLength || c.raceLength > race.MaxTime {
		fmt.Fprintf(stderr, "ssh2048 serve: --race-length %v: must be %v to %v\n", c.raceLength, minRaceLength, race.MaxTime)
		return c, 2, false
	}
	if err := c.http.validate(); err != nil {
		fmt.Fprintf(stderr, "ssh2048 serve: %v\n", err)
		return c, 2, false
	}
	if err := c.limits.Validate(); err != nil {
		fmt.Fprintf(stderr, "ssh2048 serve: %v\n", err)
		return c, 2, false
	}
	if _, err := admission.ParsePrefixes(c.proxyFrom); err != nil {
		fmt.Fprintf(stderr, "ssh2048 serve: --proxy-protocol-from: %v\n", err)
		return c, 2, false
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		fmt.Fprintf(stderr, "ssh2048 serve: --log-format %q: want text or json\n", c.logFormat)
		return c, 2, false
	}
	if _, ok := durabilities[c.durability]; !ok {
		fmt.Fprintf(stderr, "ssh2048 serve: --durability %q: want power or crash\n", c.durability)
		return c, 2, false
	}
	if c.adminKeys != "" || c.blocked != "" {
		c.moderation = &moderationFiles{}
		var err error
		if c.adminKeys != "" {
			if c.moderation.keys, err = moderation.ReadAdminKeys(c.adminKeys); err != nil {
				fmt.Fprintf(stderr, "ssh2048 serve: --admin-keys: %v\n", err)
				return c, 2, false
			}
		}
		if c.blocked != "" {
			if c.moderation.blocked, err = moderation.ReadBlocklist(c.blocked); err != nil {
				fmt.Fprintf(stderr, "ssh2048 serve: --blocked-names: %v\n", err)
				return c, 2, false
			}
		}
	}
	if c.pprof != "" {
		if err := checkPprofAddr(c.pprof); err != nil {
			fmt.Fprintf(stderr, "ssh2048 serve: %v\n", err)
			return c, 2, false
		}
	}
	if err := checkDistinctAddrs(map[string]string{"listen": c.listen, "http": c.http.addr, "metrics": c.http.metrics, "pprof": c.pprof}); err != nil {
		fmt.Fprintf(stderr, "ssh2048 serve: %v\n", err)
		return c, 2, false
	}
	if err := server.CheckHostKey(c.hostKeyFile()); err != nil {
		fmt.Fprintf(stderr, "ssh2048 serve: --host-key: %v\n", err)
		return c, 2, false
	}
	return c, 0, true
}

// hostKeyFile is --host-key, or the host key's file in the data directory.
func (c serveConfig) hostKeyFile() string {
	if c.hostKey != "" {
		return c.hostKey
	}
	return filepath.Join(c.data, server.HostKeyFile)
}

// checkDistinctAddrs refuses two listeners (of addrs, by flag name) on one
// address, written the same way: the second would fail to listen only
// after serve had made its data directory. Ports picked by the system
// (:0) are each their own.
func checkDistinctAddrs(addrs map[string]string) error {
	names := make([]string, 0, len(addrs))
	for name := range addrs {
		names = append(names, name)
	}
	slices.Sort(names)
	seen := map[string]string{}
	for _, name := range names {
		host, port, err := net.SplitHostPort(addrs[name])
		if err != nil || port == "0" {
			continue
		}
		key := net.JoinHostPort(host, port)
		if first, ok := seen[key]; ok {
			return fmt.Errorf("--%s %s: --%s listens there already", name, addrs[name], first)
		}
		seen[key] = name
	}
	return nil
}

// checkListenAddr refuses an address, the value of --name, that net.Listen
// would refuse for its form: it must be HOST:PORT or :PORT, the port a
// number (or a service name) from 0 to 65535. A host name that does not
// resolve is still found only when serve listens.
func checkListenAddr(name, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil && port == "" {
		err = errors.New("no port (:0 picks a free one)")
	}
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return fmt.Errorf("--%s %q: want HOST:PORT or :PORT: %w", name, addr, unwrapAddrError(err))
	}
	return nil
}

// unwrapAddrError is the reason in err without the address, which the
// caller's message already names.
func unwrapAddrError(err error) error {
	var ae *net.AddrError
	if errors.As(err, &ae) {
		return errors.New(ae.Err)
	}
	var de *net.DNSError
	if errors.As(err, &de) {
		return errors.New(de.Err)
	}
	return err
}

// checkDatabaseURL refuses a --database that PostgreSQL's driver cannot
// read, before anything connects to it. The message never repeats the
// URL, which may hold a password.
func checkDatabaseURL(url string) error {
	if url == "" {
		return nil
	}
	if scheme, _, ok := strings.Cut(url, "://"); ok && scheme != "postgres" && scheme != "postgresql" {
		return fmt.Errorf("--database: want a postgres:// URL, not %.20q", scheme+"://")
	}
	if _, err := pgxpool.ParseConfig(url); err != nil {
		return errors.New("--database: not a PostgreSQL URL (postgres://user@host/db)")
	}
	return nil
}

// stateDirectory is systemd's StateDirectory= (the first, if several), or
// ./data.
func stateDirectory() string {
	if dirs := os.Getenv("STATE_DIRECTORY"); dirs != "" {
		return strings.Split(dirs, ":")[0]
	}
	return "data"
}

func runServe(args []string, stdout, stderr io.Writer) int {
	cfg, code, ok := parseServe(args, stdout, stderr)
	if !ok {
		return code
	}
	opts := &slog.HandlerOptions{Level: cfg.logLevel}
	var handler slog.Handler = slog.NewTextHandler(stderr, opts)
	if cfg.logFormat == "json" {
		handler = slog.NewJSONHandler(stderr, opts)
	}
	log := slog.New(server.CleanLogHandler(handler))
	// The SSH library logs its own errors (and panics it recovers) to
	// slog's default: the same handler, strings escaped the same way.
	slog.SetDefault(log)
	if err := serve(cfg, log); err != nil {
		log.Error("serve", "err", err)
		return 1
	}
	return 0
}

// collectorPercent is the server's GOGC unless the environment sets one.
// Go's default, 100, lets the heap grow to twice what is live before the
// collector runs again; at 70, to 1.7 times. Sessions, most of them idle,
// hold most of the server's memory and allocate little, so the headroom
// costs little CPU to cut: idle screens and players moving alike peak
// lower, with the same CPU within the runs' spread (docs/performance.md,
// "Summary", says what the server holds; the commit that brought this in
// has the runs).
const collectorPercent = 70

// tuneCollector sets the collector to collectorPercent, unless GOGC is set.
func tuneCollector(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(collectorPercent)
	}
}

// serve runs the server until a signal, then shuts it down gracefully.
func serve(cfg serveConfig, log *slog.Logger) error {
	tuneCollector(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	if cfg.pprof != "" {
		pl, err := listenPprof(cfg.pprof, log)
		if err != nil {
			return err
		}
		defer pl.Close()
	}

	// The metrics exist when something serves them; a nil *Metrics
	// observes nothing.
	var m *metrics.Metrics
	if cfg.http.on() {
		m = metrics.New()
	}
	st, err := openStore(ctx, cfg, log, m)
	if err != nil {
		return err
	}
	defer func() {
		if err := st.Close(); err != nil {
			log.Error("close store", "err", err)
		}
	}()
	hostKey, err := server.LoadOrCreateHostKey(cfg.hostKeyFile())
	if err != nil {
		return err
	}
	var opts []game.Option
	if shared, ok := st.(*postgres.Store); ok {
		// Takeovers and spectators across the nodes on this database.
		opts = append(opts, game.WithBus(shared.Bus()))
	}
	var raceOpts []race.Option
	if cfg.raceLength != race.DefaultTime {
		raceOpts = append(raceOpts, race.WithTimes(race.LobbyCountdown, race.RoomCountdown, cfg.raceLength))
	}
	var pool *ai.Pool
	if cfg.ai {
		// One pool of searches for the whole server, no more workers
		// than cores: hints, autoplay and reviews of every session
		// share it, hints first, reviews last.
		pool = ai.NewPool(0, ai.WithSearchObserver(m.Searched))
		defer pool.Close()
		opts = append(opts, game.WithReviews(review.WithShare(pool, cfg.reviewShare)))
	}
	games := game.New(st, log, opts...)
	races := race.New(games, raceOpts...)
	bans, err := moderate(ctx, st, cfg, log)
	if err != nil {
		return err
	}
	defer bans.Close()
	scfg := server.Config{Games: games, Races: races, HostKey: hostKey, Logger: log, Limits: cfg.limits, Observer: m,
		Bans: bans, Motion: cfg.motion, MotionScreens: cfg.motionMax}
	if cfg.moderation != nil {
		scfg.Blocked = cfg.moderation.blocked
	}
	var queued func() (int, int)
	if pool != nil {
		scfg.Hinter = pool
		queued = pool.Queued
	}
	srv, err := server.New(scfg)
	if err != nil {
		return err
	}
	// The SSH port is taken before the web site starts, so that the
	// site's pages name the port players reach (--listen :0 included).
	l, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer l.Close()
	if cfg.http.on() {
		m.Watch(metrics.Sources{Connections: srv.Connections, Games: games.Stats, Races: races.Stats, AIQueue: queued})
		stopHTTP, err := serveHTTP(cfg.http, log, m, games, races, st, srv, l.Addr().(*net.TCPAddr).Port)
		if err != nil {
			return err
		}
		defer stopHTTP()
	}
	trusted, _ := admission.ParsePrefixes(cfg.proxyFrom) // checked by parseServe
	l = admission.ProxyListener(l, trusted)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	// The host key's fingerprint is what a player's ssh shows on first
	// connect and asks them to check: the operator publishes it.
	log.Info("listening", "addr", l.Addr().String(), "play", playCommand(l.Addr()),
		"host_key", gossh.FingerprintSHA256(hostKey.PublicKey()), "data", cfg.data, "ai", cfg.ai, "version", version())
	notify(log, daemon.SdNotifyReady)

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	stop() // a second signal kills the process the default way
	log.Info("shutting down")
	notify(log, daemon.SdNotifyStopping)
	sctx, cancel := context.WithTimeout(context.Background(), shutdownBudget)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, net.ErrClosed) {
		log.Error("shutdown", "err", err)
	}
	<-served
	log.Info("stopped")
	return nil
}

// servedStore is what serve needs of a store: the game service's, the
// admins' and bans' (store.Moderator), a Ping for /readyz, and Close.
type servedStore interface {
	store.Store
	store.Moderator
	Ping(ctx context.Context) error
	Close() error
}

// openStore opens PostgreSQL when --database names one, else SQLite under
// --data, checked for damage before the server listens.
func openStore(ctx context.Context, cfg serveConfig, log *slog.Logger, m *metrics.Metrics) (servedStore, error) {
	if cfg.database != "" {
		return postgres.Open(ctx, cfg.database, postgres.WithLogger(log), postgres.WithObserver(m))
	}
	s, err := sqlite.Open(ctx, cfg.data, sqlite.WithLogger(log), sqlite.WithDurability(durabilities[cfg.durability]), sqlite.WithObserver(m))
	if errors.Is(err, sqlite.ErrCorrupt) {
		return nil, fmt.Errorf("%w. %s", err, damagedHint(cfg.data))
	}
	if err != nil {
		return nil, err
	}
	if err := checkAtStart(ctx, s, cfg.data, log); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// moderate makes the admin keys the store's admins by file, and reads
// the ban list the server checks every connection against.
func moderate(ctx context.Context, st store.Moderator, cfg serveConfig, log *slog.Logger) (*moderation.BanList, error) {
	if cfg.adminKeys != "" {
		if err := st.SyncAdminKeys(ctx, cfg.moderation.keys); err != nil {
			return nil, err
		}
		log.Info("admins by file", "file", cfg.adminKeys, "keys", len(cfg.moderation.keys))
	}
	if cfg.blocked != "" {
		log.Info("blocked names", "file", cfg.blocked, "words", cfg.moderation.blocked.Len())
	}
	return moderation.NewBanList(ctx, st, log)
}

// playCommand is how to connect to a server listening on addr, for the
// log: a wildcard address is reached as localhost from this machine.
func playCommand(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	if port == "22" {
		return "ssh " + host
	}
	return "ssh -p " + port + " " + host
}

// notify tells systemd about the service's state; outside systemd it does
// nothing.
func notify(log *slog.Logger, state string) {
	if _, err := daemon.SdNotify(false, state); err != nil {
		log.Warn("sd_notify", "state", state, "err", err)
	}
}
