// Package server is the SSH side of ssh2048: authentication by public key,
// the middleware chain, the exec commands (scores, bot, help), the
// one-writer-per-game rule and graceful shutdown. The TUI is plugged in
// through Config.TUI.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	rm "charm.land/wish/v2/recover"
	"github.com/ssh2048/ssh2048/tui"
	gossh "golang.org/x/crypto/ssh"
)

// Config configures a Server.
type Config struct {
	Store       Store         // required
	HostKey     gossh.Signer  // required; see LoadOrCreateHostKey
	Logger      *slog.Logger  // nil: slog.Default()
	IdleTimeout time.Duration // close a connection after this long without input; 0: never
	// HandshakeTimeout closes a connection that has not finished the SSH
	// handshake and authentication in time; 0: 30 s.
	HandshakeTimeout time.Duration
	TUI              TUIFunc    // the game screen; nil: package tui's, with Hinter
	Hinter           tui.Hinter // the AI behind hints and autoplay; nil: none
}

// defaultHandshakeTimeout bounds the SSH handshake and authentication.
const defaultHandshakeTimeout = 30 * time.Second

// Server serves ssh2048 over SSH.
type Server struct {
	cfg   Config
	store Store
	log   *slog.Logger
	ssh   *ssh.Server
	games registry

	mu       sync.Mutex
	shutdown bool
	sessions map[*session]struct{}
	active   int           // running session handlers
	drained  chan struct{} // closed when active drops to 0 during Shutdown
}

// New returns a server ready to Serve.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil || cfg.HostKey == nil {
		return nil, errors.New("server: Config.Store and Config.HostKey are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.TUI == nil {
		cfg.TUI = gameScreen(cfg.Store, cfg.Hinter)
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = defaultHandshakeTimeout
	}
	s := &Server{cfg: cfg, store: cfg.Store, log: cfg.Logger, sessions: make(map[*session]struct{})}
	srv, err := wish.NewServer(
		func(srv *ssh.Server) error { srv.AddHostKey(cfg.HostKey); return nil },
		wish.WithVersion("ssh2048"),
		ssh.PublicKeyAuth(acceptAnyKey),
		ssh.KeyboardInteractiveAuth(admitGuest),
		// Middleware runs bottom-up: the last listed wraps all the others
		// and sees the session first.
		wish.WithMiddleware(
			// 4. Routing: exec command, TUI on a PTY, or a hint to use -t.
			s.route,
			// 3. Identity: the player this session's key names.
			s.identify,
			// 2. Logging: connect and disconnect of every session.
			s.logging,
			// 1. Recover: a panic anywhere below ends that session only,
			//    never the server.
			rm.MiddlewareWithLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError)),
		),
	)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	// A client that connects and never finishes the handshake would hold
	// a connection (and a goroutine) forever.
	srv.HandshakeTimeout = cfg.HandshakeTimeout
	if cfg.IdleTimeout > 0 {
		srv.ConnCallback = func(_ ssh.Context, c net.Conn) net.Conn {
			remote := c.RemoteAddr().String()
			return newIdleConn(c, cfg.IdleTimeout, func() {
				s.log.Info("idle timeout", "remote", remote, "after", cfg.IdleTimeout)
			})
		}
	}
	// Every session handler is counted, so Shutdown knows when the
	// goodbyes are written and the games saved. (Not a WaitGroup: a
	// connection may open a session while Shutdown waits.)
	handler := srv.Handler
	srv.Handler = func(sess ssh.Session) {
		s.mu.Lock()
		s.active++
		s.mu.Unlock()
		defer s.leave()
		handler(sess)
	}
	s.ssh = srv
	return s, nil
}

// Serve accepts connections on l until Shutdown or Close.
func (s *Server) Serve(l net.Listener) error {
	err := s.ssh.Serve(l)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// Close drops every connection at once. Prefer Shutdown.
func (s *Server) Close() error { return s.ssh.Close() }

// Shutdown stops accepting connections, tells every session the server is
// restarting (their games are saved: every reply follows its commit), waits
// for the sessions to end until ctx is done, then drops what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	open := make([]*session, 0, len(s.sessions))
	for sess := range s.sessions {
		open = append(open, sess)
	}
	if s.drained == nil {
		s.drained = make(chan struct{})
		if s.active == 0 {
			close(s.drained)
		}
	}
	handlersDone := s.drained
	s.mu.Unlock()

	// Closes the listeners at once; it waits for connections, which end
	// when the handlers below have said goodbye, or when Close drops them.
	shutdownDone := make(chan error, 1)
	go func() { shutdownDone <- s.ssh.Shutdown(ctx) }()
	for _, sess := range open {
		sess.notify(noticeShutdown)
	}
	select {
	case <-handlersDone:
	case <-ctx.Done():
	}
	// Clients that keep their connection open after their session ended
	// would hold Shutdown until ctx expires: drop them now.
	closeErr := s.ssh.Close()
	err := <-shutdownDone
	if errors.Is(err, ssh.ErrServerClosed) || errors.Is(err, context.Canceled) {
		err = nil
	}
	select {
	case <-handlersDone:
	case <-ctx.Done():
		return fmt.Errorf("shutdown: sessions still running: %w", ctx.Err())
	}
	return errors.Join(err, closeErr)
}

// leave counts a session handler out.
func (s *Server) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	if s.active == 0 && s.drained != nil {
		select {
		case <-s.drained:
		default:
			close(s.drained)
		}
	}
}

func (s *Server) closing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shutdown
}

// track registers a session for shutdown notices; it reports false when
// the server is already shutting down.
func (s *Server) track(sess *session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return false
	}
	s.sessions[sess] = struct{}{}
	return true
}

func (s *Server) untrack(sess *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, sess)
}
