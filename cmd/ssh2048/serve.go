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
	"strings"
	"syscall"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/ssh2048/ssh2048/db"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/server"
)

// shutdownBudget is how long sessions get to say goodbye after SIGTERM;
// with the store's flush the process exits well within 10 s.
const shutdownBudget = 7 * time.Second

// durabilities maps --durability to the store's setting.
var durabilities = map[string]db.Durability{"power": db.PowerSafe, "crash": db.CrashSafe}

// serveConfig is the serve subcommand's flags.
type serveConfig struct {
	listen      string
	data        string
	idleTimeout time.Duration
	limits      serveLimits
	durability  string
	logFormat   string
	logLevel    slog.Level
}

// serveLimits is the limits as server.Config takes them: 0 the server's
// default, negative off (where the flags say 0).
type serveLimits struct {
	loginGrace        time.Duration
	maxConns          int
	maxUnauthPerIP    int
	connRatePerIP     float64
	connBurstPerIP    int
	keepaliveInterval time.Duration
	keepaliveMax      int
	keyRate           float64
	maxSessions       int
	sessionRate       float64
	maxConnsPerIP     int
	keyReserve        int
}

// flagLimits is the limits as the flags give them: 0 off.
type flagLimits struct {
	loginGrace        time.Duration
	maxConns          int
	maxUnauthPerIP    int
	connRatePerIP     float64
	connBurstPerIP    int
	keepaliveInterval time.Duration
	keepaliveMax      int
	keyRate           float64
	maxSessions       int
	sessionRate       float64
	maxConnsPerIP     int
	keyReserve        int
}

// parseServe reads the flags, each with an environment fallback.
func parseServe(args []string, stderr io.Writer) (serveConfig, int, bool) {
	var c serveConfig
	fs := newFlagSet("serve", "usage: ssh2048 [serve] [flags]\n\nRuns the SSH server until SIGTERM or SIGINT. Flags (environment fallback in brackets):", stderr)
	fs.StringVar(&c.listen, "listen", env("SSH2048_LISTEN", ":23234"), "address to listen on [$SSH2048_LISTEN]")
	fs.StringVar(&c.data, "data", env("SSH2048_DATA", stateDirectory()),
		"directory for the database and the host key [$SSH2048_DATA, else $STATE_DIRECTORY, else ./data]")
	// The limits (README-limits); the server explains each one.
	var l flagLimits
	limitFlags := []struct{ name, env string }{
		{"idle-timeout", "SSH2048_IDLE_TIMEOUT"}, {"login-grace", "SSH2048_LOGIN_GRACE"},
		{"max-conns", "SSH2048_MAX_CONNS"}, {"max-unauth-per-ip", "SSH2048_MAX_UNAUTH_PER_IP"},
		{"conn-rate-per-ip", "SSH2048_CONN_RATE_PER_IP"}, {"conn-burst-per-ip", "SSH2048_CONN_BURST_PER_IP"},
		{"keepalive-interval", "SSH2048_KEEPALIVE_INTERVAL"}, {"keepalive-max", "SSH2048_KEEPALIVE_MAX"},
		{"key-rate", "SSH2048_KEY_RATE"}, {"max-sessions-per-conn", "SSH2048_MAX_SESSIONS_PER_CONN"},
		{"session-rate-per-conn", "SSH2048_SESSION_RATE_PER_CONN"}, {"max-conns-per-ip", "SSH2048_MAX_CONNS_PER_IP"},
		{"key-reserve", "SSH2048_KEY_RESERVE"},
	}
	usage := func(i int, text string) string { return text + " [$" + limitFlags[i].env + "]" }
	fs.DurationVar(&c.idleTimeout, "idle-timeout", 10*time.Minute,
		usage(0, "close a connection after this long without input from the client; 0 never"))
	fs.DurationVar(&l.loginGrace, "login-grace", server.DefaultLoginGrace,
		usage(1, "close a connection that has not logged in after this long"))
	fs.IntVar(&l.maxConns, "max-conns", server.DefaultMaxConns,
		usage(2, "most connections at once, logged in or not; more are refused; 0 no cap"))
	fs.IntVar(&l.maxUnauthPerIP, "max-unauth-per-ip", server.DefaultMaxUnauthPerIP,
		usage(3, "most connections not yet logged in from one address (IPv6: one /64); 0 no cap"))
	fs.Float64Var(&l.connRatePerIP, "conn-rate-per-ip", server.DefaultConnRatePerIP,
		usage(4, "new connections a second from one address, after a burst of --conn-burst-per-ip; 0 no limit"))
	fs.IntVar(&l.connBurstPerIP, "conn-burst-per-ip", server.DefaultConnBurstPerIP,
		usage(5, "new connections from one address at once, before --conn-rate-per-ip applies"))
	fs.DurationVar(&l.keepaliveInterval, "keepalive-interval", server.DefaultKeepaliveInterval,
		usage(6, "send a keepalive to a logged-in client this often; 0 never"))
	fs.IntVar(&l.keepaliveMax, "keepalive-max", server.DefaultKeepaliveMax,
		usage(7, "close a connection after this many keepalive intervals without a reply"))
	fs.Float64Var(&l.keyRate, "key-rate", server.DefaultKeyRate,
		usage(8, "keys a second a game screen takes (a second's worth at once); more are dropped; 0 no limit"))
	fs.IntVar(&l.maxSessions, "max-sessions-per-conn", server.DefaultMaxSessions,
		usage(9, "most sessions open at once on one connection, started or not; 0 no cap"))
	fs.Float64Var(&l.sessionRate, "session-rate-per-conn", server.DefaultSessionRate,
		usage(10, "sessions a second one connection may open, after a burst of 10; 0 no limit"))
	fs.IntVar(&l.maxConnsPerIP, "max-conns-per-ip", server.DefaultMaxConnsPerIP,
		usage(11, "most logged-in connections from one address (IPv6: one /64), guests and keys alike; 0 no cap"))
	fs.IntVar(&l.keyReserve, "key-reserve", server.DefaultKeyReserve,
		usage(12, "per cent of --max-conns that guests cannot take, kept for players with a key; 0 none"))
	// The environment comes in through the flags' own parsers, before
	// the command line, which overrides it.
	for _, f := range limitFlags {
		if v := env(f.env, ""); v != "" {
			if err := fs.Set(f.name, v); err != nil {
				fmt.Fprintf(stderr, "ssh2048 serve: $%s: %v\n", f.env, err)
				return c, 2, false
			}
		}
	}

	fs.StringVar(&c.durability, "durability", env("SSH2048_DURABILITY", "power"),
		"when a move is durable: power (it survives a power cut too; an fsync per commit) or crash (it survives the process being killed, not a power cut) [$SSH2048_DURABILITY]")
	fs.StringVar(&c.logFormat, "log-format", env("SSH2048_LOG_FORMAT", "text"), "log format on stderr: text or json [$SSH2048_LOG_FORMAT]")
	level := env("SSH2048_LOG_LEVEL", "info")
	if err := c.logLevel.UnmarshalText([]byte(level)); err != nil {
		fmt.Fprintf(stderr, "ssh2048 serve: $SSH2048_LOG_LEVEL: %v\n", err)
		return c, 2, false
	}
	fs.TextVar(&c.logLevel, "log-level", c.logLevel, "debug, info, warn or error [$SSH2048_LOG_LEVEL]")
	if code, ok := parse(fs, args); !ok {
		return c, code, false
	}
	if c.idleTimeout < 0 {
		fmt.Fprintln(stderr, "ssh2048 serve: --idle-timeout must not be negative")
		return c, 2, false
	}
	lim, err := l.config()
	if err != nil {
		fmt.Fprintf(stderr, "ssh2048 serve: %v\n", err)
		return c, 2, false
	}
	c.limits = lim
	if c.logFormat != "text" && c.logFormat != "json" {
		fmt.Fprintf(stderr, "ssh2048 serve: --log-format %q: want text or json\n", c.logFormat)
		return c, 2, false
	}
	if _, ok := durabilities[c.durability]; !ok {
		fmt.Fprintf(stderr, "ssh2048 serve: --durability %q: want power or crash\n", c.durability)
		return c, 2, false
	}
	return c, 0, true
}

// config checks the flags' limits and converts them to server.Config's
// terms: a flag at the server's default becomes 0, a flag at 0 (off) a
// negative number.
func (l flagLimits) config() (serveLimits, error) {
	switch {
	case l.loginGrace <= 0:
		return serveLimits{}, errors.New("--login-grace must be positive (it cannot be turned off)")
	case l.maxConns < 0 || l.maxUnauthPerIP < 0 || l.maxSessions < 0 || l.maxConnsPerIP < 0:
		return serveLimits{}, errors.New("--max-conns, --max-unauth-per-ip, --max-sessions-per-conn and --max-conns-per-ip must be 0 (no cap) or more")
	case l.keyReserve < 0 || l.keyReserve > 100:
		return serveLimits{}, errors.New("--key-reserve must be a per cent, 0 to 100")
	case l.sessionRate < 0:
		return serveLimits{}, errors.New("--session-rate-per-conn must not be negative")
	case l.connBurstPerIP < 1 || l.keepaliveMax < 1:
		return serveLimits{}, errors.New("--conn-burst-per-ip and --keepalive-max must be 1 or more")
	case l.connRatePerIP < 0 || l.keyRate < 0 || l.keepaliveInterval < 0:
		return serveLimits{}, errors.New("--conn-rate-per-ip, --key-rate and --keepalive-interval must not be negative")
	}
	return serveLimits{
		loginGrace:        setting(l.loginGrace, server.DefaultLoginGrace),
		maxConns:          setting(l.maxConns, server.DefaultMaxConns),
		maxUnauthPerIP:    setting(l.maxUnauthPerIP, server.DefaultMaxUnauthPerIP),
		connRatePerIP:     setting(l.connRatePerIP, server.DefaultConnRatePerIP),
		connBurstPerIP:    setting(l.connBurstPerIP, server.DefaultConnBurstPerIP),
		keepaliveInterval: setting(l.keepaliveInterval, server.DefaultKeepaliveInterval),
		keepaliveMax:      setting(l.keepaliveMax, server.DefaultKeepaliveMax),
		keyRate:           setting(l.keyRate, server.DefaultKeyRate),
		maxSessions:       setting(l.maxSessions, server.DefaultMaxSessions),
		sessionRate:       setting(l.sessionRate, server.DefaultSessionRate),
		maxConnsPerIP:     setting(l.maxConnsPerIP, server.DefaultMaxConnsPerIP),
		keyReserve:        setting(l.keyReserve, server.DefaultKeyReserve),
	}, nil
}

func setting[T time.Duration | int | float64](v, def T) T {
	switch v {
	case def:
		return 0
	case 0:
		return -1
	}
	return v
}

// apply sets the limits in cfg.
func (l serveLimits) apply(cfg *server.Config) {
	cfg.LoginGrace, cfg.MaxConns, cfg.MaxUnauthPerIP = l.loginGrace, l.maxConns, l.maxUnauthPerIP
	cfg.ConnRatePerIP, cfg.ConnBurstPerIP = l.connRatePerIP, l.connBurstPerIP
	cfg.KeepaliveInterval, cfg.KeepaliveMax, cfg.KeyRate = l.keepaliveInterval, l.keepaliveMax, l.keyRate
	cfg.MaxSessionsPerConn = l.maxSessions
	cfg.SessionRatePerConn, cfg.MaxConnsPerIP, cfg.KeyReserve = l.sessionRate, l.maxConnsPerIP, l.keyReserve
}

func env(key, fallback string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return fallback
}

// stateDirectory is systemd's StateDirectory= (the first, if several), or
// ./data.
func stateDirectory() string {
	if dirs := os.Getenv("STATE_DIRECTORY"); dirs != "" {
		return strings.Split(dirs, ":")[0]
	}
	return "data"
}

func runServe(args []string, _, stderr io.Writer) int {
	cfg, code, ok := parseServe(args, stderr)
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

// serve runs the server until a signal, then shuts it down gracefully.
func serve(cfg serveConfig, log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	store, err := db.Open(ctx, cfg.data, db.WithLogger(log), db.WithDurability(durabilities[cfg.durability]))
	if errors.Is(err, db.ErrCorrupt) {
		return fmt.Errorf("%w. %s", err, damagedHint(cfg.data))
	}
	if err != nil {
		return err
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("close store", "err", err)
		}
	}()
	if err := checkAtStart(ctx, store, cfg.data, log); err != nil {
		return err
	}
	hostKey, err := server.LoadOrCreateHostKey(filepath.Join(cfg.data, server.HostKeyFile))
	if err != nil {
		return err
	}
	// One pool of searches for the whole server, no more workers than
	// cores: hints and autoplay of every session share it, hints first.
	pool := ai.NewPool(0)
	defer pool.Close()
	scfg := server.Config{Store: store, HostKey: hostKey, Logger: log, IdleTimeout: cfg.idleTimeout, Hinter: pool}
	cfg.limits.apply(&scfg)
	srv, err := server.New(scfg)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	log.Info("listening", "addr", l.Addr().String(), "data", cfg.data, "version", version())
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

// notify tells systemd about the service's state; outside systemd it does
// nothing.
func notify(log *slog.Logger, state string) {
	if _, err := daemon.SdNotify(false, state); err != nil {
		log.Warn("sd_notify", "state", state, "err", err)
	}
}
