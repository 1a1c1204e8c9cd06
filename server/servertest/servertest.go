// Package servertest runs the real ssh2048 server for tests: on a loopback
// port, over a real SQLite file (or any store, StartOver), stopped when
// the test ends. The server's
// own end-to-end tests, the admission's and the load generator's share it,
// and its clients (clients.go): logins from any loopback address, exec
// commands run to their end, PTYs, raw TCP. Screen reads a screen command
// through a virtual terminal, on any server (the cluster tests of
// cmd/ssh2048 too).
package servertest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/admission"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
	gossh "golang.org/x/crypto/ssh"
)

// Server is a running server and what it runs on.
type Server struct {
	Srv   *server.Server
	Store *sqlite.Store
	Addr  string // host:port it listens on
	Dir   string // its data directory
	Logs  *Buffer
	// Stop shuts the server down and closes its store; it runs at the
	// end of the test too, and only once.
	Stop func()
}

// Start runs a server on addr ("127.0.0.1:0" for any port) over the data in
// dir, with the config changed by opts. Its log is kept in Logs and shown
// if the test fails.
func Start(tb testing.TB, dir, addr string, opts ...func(*server.Config)) *Server {
	tb.Helper()
	return StartGames(tb, dir, addr, nil, opts...)
}

// StartGames is Start with the game service built with gameOpts: a fake
// clock (game.WithClock), say.
func StartGames(tb testing.TB, dir, addr string, gameOpts []game.Option, opts ...func(*server.Config)) *Server {
	tb.Helper()
	var sq *sqlite.Store
	s := start(tb, dir, addr, func(log *slog.Logger) (Backing, error) {
		var err error
		sq, err = sqlite.Open(context.Background(), dir, sqlite.WithLogger(log))
		return sq, err
	}, gameOpts, opts)
	s.Store = sq
	return s
}

// Backing is a store a Server runs on; it is closed when the server stops.
type Backing interface {
	store.Store
	io.Closer
}

// StartOver is Start over the store open opens, given the server's
// logger: a PostgreSQL store, for the tests that run against both. The
// Server's Store is nil.
func StartOver(tb testing.TB, dir, addr string, open func(*slog.Logger) (Backing, error), opts ...func(*server.Config)) *Server {
	tb.Helper()
	return start(tb, dir, addr, open, nil, opts)
}

func start(tb testing.TB, dir, addr string, open func(*slog.Logger) (Backing, error), gameOpts []game.Option, opts []func(*server.Config)) *Server {
	tb.Helper()
	logs := &Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	store, err := open(log)
	if err != nil {
		tb.Fatal(err)
	}
	key, err := server.LoadOrCreateHostKey(filepath.Join(dir, server.HostKeyFile))
	if err != nil {
		tb.Fatal(err)
	}
	cfg := server.Config{Games: game.New(store, log, gameOpts...), HostKey: key, Logger: log, Limits: admission.DefaultLimits()}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := srv.Shutdown(ctx); err != nil {
				tb.Errorf("shutdown: %v", err)
			}
			if err := <-served; err != nil {
				tb.Errorf("serve: %v", err)
			}
			if err := store.Close(); err != nil {
				tb.Errorf("close store: %v", err)
			}
		})
	}
	tb.Cleanup(func() {
		stop()
		if tb.Failed() {
			tb.Logf("server log:\n%s", logs.String())
		}
	})
	return &Server{Srv: srv, Addr: l.Addr().String(), Dir: dir, Logs: logs, Stop: stop}
}

// Races builds the server's races with opts (races of a few seconds:
// race.WithTimes), for Start's opts.
func Races(opts ...race.Option) func(*server.Config) {
	return func(c *server.Config) { c.Races = race.New(c.Games, opts...) }
}

// Buffer is a bytes.Buffer safe for the server's goroutines.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// NewKey returns a fresh ed25519 client key: a new player.
func NewKey(tb testing.TB) gossh.Signer {
	tb.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
