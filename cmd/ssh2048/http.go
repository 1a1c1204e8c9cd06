package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/metrics"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/web"
)

// httpConfig is serve's web flags: off unless --http is set.
type httpConfig struct {
	addr       string
	ratePerIP  float64
	burstPerIP int
}

func (c *httpConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "http", "",
		"serve the web site, /metrics, /healthz and /readyz on this address (e.g. 127.0.0.1:23280); off when empty")
	fs.Float64Var(&c.ratePerIP, "http-rate-per-ip", web.DefaultRatePerIP,
		"HTTP requests a second from one address, after a burst of --http-burst-per-ip; 0 no limit")
	fs.IntVar(&c.burstPerIP, "http-burst-per-ip", web.DefaultBurstPerIP,
		"HTTP requests from one address at once, before --http-rate-per-ip applies")
}

func (c httpConfig) validate() error {
	if c.addr != "" {
		if err := checkListenAddr("http", c.addr); err != nil {
			return err
		}
	}
	if c.ratePerIP < 0 || c.burstPerIP < 1 {
		return errors.New("--http-rate-per-ip must be 0 (no limit) or more, --http-burst-per-ip 1 or more")
	}
	return nil
}

// serveHTTP starts the web site, whose pages tell players to connect to
// sshPort; the returned function stops it.
func serveHTTP(cfg httpConfig, log *slog.Logger, m *metrics.Metrics, games *game.Service, store interface{ Ping(context.Context) error }, srv *server.Server, sshPort int) (func(), error) {
	site, err := web.New(web.Config{
		Games:   games,
		SSHPort: sshPort,
		Metrics: m.Handler(),
		Ready: func(ctx context.Context) error {
			if !srv.Accepting() {
				return errors.New("shutting down")
			}
			if err := store.Ping(ctx); err != nil {
				m.Failed("ping")
				return err
			}
			return nil
		},
		Observer:   m,
		Logger:     log,
		RatePerIP:  cfg.ratePerIP,
		BurstPerIP: cfg.burstPerIP,
	})
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("listen http: %w", err)
	}
	hs := web.NewServer(site, web.DefaultTimeouts(), log)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(web.LimitListener(l, web.MaxConns)) }()
	log.Info("listening http", "addr", l.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			hs.Close()
		}
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("http", "err", err)
		}
	}, nil
}
