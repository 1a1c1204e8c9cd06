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
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server"
)

// shutdownBudget is how long sessions get to say goodbye after SIGTERM;
// with the store's flush the process exits well within 10 s.
const shutdownBudget = 7 * time.Second

// durabilities maps --durability to the store's setting.
var durabilities = map[string]db.Durability{"power": db.PowerSafe, "crash": db.CrashSafe}

// serveConfig is the serve subcommand's flags.
type serveConfig struct {
	listen     string
	data       string
	limits     server.Limits
	durability string
	logFormat  string
	logLevel   slog.Level
	pprof      string // loopback address for net/http/pprof; "" none
}

// parseServe reads the flags, each with an environment fallback.
func parseServe(args []string, stderr io.Writer) (serveConfig, int, bool) {
	c := serveConfig{limits: server.DefaultLimits()}
	fs := newFlagSet("serve", "usage: ssh2048 [serve] [flags]\n\nRuns the SSH server until SIGTERM or SIGINT. Flags (environment fallback in brackets):", stderr)
	fs.StringVar(&c.listen, "listen", ":23234", "address to listen on")
	fs.StringVar(&c.data, "data", stateDirectory(),
		"directory for the database and the host key (default $STATE_DIRECTORY, else ./data)")
	c.limits.Flags(fs)
	fs.StringVar(&c.durability, "durability", "power",
		"when a move is durable: power (it survives a power cut too; an fsync per commit) or crash (it survives the process being killed, not a power cut)")
	fs.StringVar(&c.logFormat, "log-format", "text", "log format on stderr: text or json")
	fs.TextVar(&c.logLevel, "log-level", slog.LevelInfo, "debug, info, warn or error")
	fs.StringVar(&c.pprof, "pprof", "",
		"serve Go's profiler (net/http/pprof) on this loopback address, e.g. 127.0.0.1:6060; off when empty")
	if code, ok := parse(fs, args); !ok {
		return c, code, false
	}
	if err := c.limits.Validate(); err != nil {
		fmt.Fprintf(stderr, "ssh2048 serve: %v\n", err)
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
	if c.pprof != "" {
		if err := checkPprofAddr(c.pprof); err != nil {
			fmt.Fprintf(stderr, "ssh2048 serve: %v\n", err)
			return c, 2, false
		}
	}
	return c, 0, true
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
	log := slog.New(handler)
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

	if cfg.pprof != "" {
		pl, err := listenPprof(cfg.pprof, log)
		if err != nil {
			return err
		}
		defer pl.Close()
	}

	store, err := db.Open(ctx, cfg.data, db.WithLogger(log), db.WithDurability(durabilities[cfg.durability]))
	if err != nil {
		return err
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("close store", "err", err)
		}
	}()
	hostKey, err := server.LoadOrCreateHostKey(filepath.Join(cfg.data, server.HostKeyFile))
	if err != nil {
		return err
	}
	// One pool of searches for the whole server, no more workers than
	// cores: hints and autoplay of every session share it, hints first.
	pool := ai.NewPool(0)
	defer pool.Close()
	games := game.New(store, log)
	srv, err := server.New(server.Config{Games: games, HostKey: hostKey, Logger: log, Hinter: pool, Limits: cfg.limits})
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
