package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/metrics"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/admission"
	"github.com/ssh2048/ssh2048/web"
)

// httpConfig is serve's web flags: off unless --http or --metrics is set.
type httpConfig struct {
	addr           string
	metrics        string // the operator's endpoints on a listener of their own; "" on addr
	ratePerIP      float64
	burstPerIP     int
	conns          web.ConnLimits
	trustedProxies string
}

func (c *httpConfig) flags(fs *flag.FlagSet) {
	c.conns = web.DefaultConnLimits()
	fs.StringVar(&c.addr, "http", "",
		"serve the web site, /metrics, /healthz and /readyz on this address (e.g. 127.0.0.1:23280); off when empty")
	fs.StringVar(&c.metrics, "metrics", "",
		"serve /metrics, /healthz and /readyz on this address of their own (e.g. 127.0.0.1:23281), not on --http's, so that they answer while the site is flooded; off when empty")
	fs.Float64Var(&c.ratePerIP, "http-rate-per-ip", web.DefaultRatePerIP,
		"HTTP requests a second from one address, after a burst of --http-burst-per-ip; 0 no limit")
	fs.IntVar(&c.burstPerIP, "http-burst-per-ip", web.DefaultBurstPerIP,
		"HTTP requests from one address at once, before --http-rate-per-ip applies")
	fs.IntVar(&c.conns.MaxConns, "http-max-conns", c.conns.MaxConns,
		"most HTTP connections open at once, idle ones included; more are closed at once; 0 no cap")
	fs.IntVar(&c.conns.MaxConnsPerIP, "http-max-conns-per-ip", c.conns.MaxConnsPerIP,
		"most HTTP connections open at once from one address (IPv6: one /64), idle ones included; trusted proxies are not capped; 0 no cap")
	fs.StringVar(&c.trustedProxies, "trusted-proxies", "",
		"addresses or CIDR prefixes (comma-separated) of the reverse proxies whose X-Forwarded-For the web site believes; none by default, loopback included")
}

func (c httpConfig) validate() error {
	if c.addr != "" {
		if err := checkListenAddr("http", c.addr); err != nil {
			return err
		}
	}
	if c.metrics != "" {
		if err := checkListenAddr("metrics", c.metrics); err != nil {
			return err
		}
	}
	if !(c.ratePerIP >= 0) || math.IsInf(c.ratePerIP, 1) || c.burstPerIP < 1 { // NaN: no limit, were it let through
		return errors.New("--http-rate-per-ip must be 0 (no limit) or a finite number more, --http-burst-per-ip 1 or more")
	}
	if c.conns.MaxConns < 0 || c.conns.MaxConnsPerIP < 0 {
		return errors.New("--http-max-conns and --http-max-conns-per-ip must be 0 (no cap) or more")
	}
	if _, err := admission.ParsePrefixes(c.trustedProxies); err != nil {
		return fmt.Errorf("--trusted-proxies: %w", err)
	}
	return nil
}

// on says whether serve has anything to serve over HTTP.
func (c httpConfig) on() bool { return c.addr != "" || c.metrics != "" }

// serveHTTP starts the web site and the operator's endpoints, whose pages
// tell players to connect to sshPort; the returned function stops them.
func serveHTTP(cfg httpConfig, log *slog.Logger, m *metrics.Metrics, games *game.Service, races *race.Hall, store interface{ Ping(context.Context) error }, srv *server.Server, sshPort int) (func(), error) {
	trusted, _ := admission.ParsePrefixes(cfg.trustedProxies) // checked by parseServe
	siteMetrics := m.Handler()
	if cfg.metrics != "" {
		siteMetrics = nil // on the operator's listener only: not published with the site
	}
	site, err := web.New(web.Config{
		Games:   games,
		Races:   races,
		SSHPort: sshPort,
		Metrics: siteMetrics,
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
		Observer:       m,
		Logger:         log,
		RatePerIP:      cfg.ratePerIP,
		BurstPerIP:     cfg.burstPerIP,
		TrustedProxies: trusted,
	})
	if err != nil {
		return nil, err
	}
	var stops []func()
	stop := func() {
		for _, s := range stops {
			s()
		}
	}
	start := func(name, addr string, h http.Handler, lim web.ConnLimits) error {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("listen %s: %w", name, err)
		}
		hs := web.NewServer(h, web.DefaultTimeouts(), log)
		served := make(chan error, 1)
		go func() {
			served <- hs.Serve(web.NewListener(l, web.ListenerConfig{Limits: lim, TrustedProxies: trusted, Observer: m, Logger: log}))
		}()
		log.Info("listening "+name, "addr", l.Addr().String())
		stops = append(stops, func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if err := hs.Shutdown(ctx); err != nil {
				hs.Close()
			}
			if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error(name, "err", err)
			}
		})
		return nil
	}
	if cfg.metrics != "" {
		// The operator's own: few clients, the same caps as the site's.
		if err := start("metrics", cfg.metrics, site.Ops(m.Handler()), cfg.conns); err != nil {
			return nil, err
		}
	}
	if cfg.addr != "" {
		if err := start("http", cfg.addr, site, cfg.conns); err != nil {
			stop()
			return nil, err
		}
	}
	return stop, nil
}
