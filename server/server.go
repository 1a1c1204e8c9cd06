// Package server is the SSH side of ssh2048: the transport (Wish, the
// host key and the algorithms), identity by public key, the middleware
// chain, the game screen on a PTY and graceful shutdown. It wires in the
// rooms beside it: package admission (who may connect, and what a
// connection may hold) into the SSH server's callbacks and channel
// handlers, and package command (the exec commands) at the end of the
// chain; package session is the vocabulary the three share. Every game is
// played through the game service (package game); the screen is package
// tui's, run by package screen, or another model through Config.TUI.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/moderation"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/screen"
	"github.com/ssh2048/ssh2048/server/admission"
	"github.com/ssh2048/ssh2048/server/command"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui"
	gossh "golang.org/x/crypto/ssh"
)

// Config configures a Server.
type Config struct {
	// Games is the game service every session plays through; required.
	// Shutdown closes it to new games.
	Games *game.Service
	// Races are the races of Games (race.New(Games)); nil: New builds
	// them. Build them here where others read them too (metrics, the
	// web's lobbies): one Hall per service. Shutdown closes them.
	Races   *race.Hall
	HostKey gossh.Signer // required; see LoadOrCreateHostKey
	Logger  *slog.Logger // nil: slog.Default()
	TUI     TUIFunc      // the game screen; nil: package tui's, with Hinter
	Hinter  tui.Hinter   // the AI behind hints and autoplay; nil: none
	// Limits bound what clients can make the server hold or do; start
	// from admission.DefaultLimits (the zero Limits is refused: see
	// Limits.Validate).
	Limits admission.Limits
	// Observer is told what the server does, for metrics; nil: no one.
	Observer Observer
	// Bans is the ban list every connection and login is checked
	// against; nil: no bans. The server neither opens nor closes it.
	Bans *moderation.BanList
	// Blocked is the words no player's name may hold: a name that holds
	// one is replaced by the name of the player's key.
	Blocked moderation.Blocklist
	// Motion: a move slides its tiles and pops its merges on the
	// player's own game screen (not on spectators' or the bots'), while
	// at most MotionScreens screens are open (0: none) and no screen's
	// motion frames come late (see screen.MotionGate).
	Motion        bool
	MotionScreens int
}

// DefaultMotionScreens is serve's --motion-screens: between the session counts
// the motion budget is measured at (docs/performance.md), the smaller
// drawing motion and the larger shedding it.
const DefaultMotionScreens = 1000

// Server serves ssh2048 over SSH.
type Server struct {
	cfg       Config
	lim       admission.Limits
	games     *game.Service
	races     *race.Hall
	log       *slog.Logger
	ssh       *ssh.Server
	admission *admission.Admission
	commands  *command.Table
	limited   session.LineLimiter // lines a client can cause at will

	unsupported sync.Map           // what game screens asked for and did not get; see unsupportedOnce
	motion      *screen.MotionGate // nil: no motion (Config.Motion)

	stopBans   func() // stops endBanned being told of new bans
	stopMerges func() // stops endMerged being told of merges
	// merges is the store's, if it tells of merges; lostNews counts the
	// times it said it may have missed news of some (its missed: a bus
	// that listens again), for endIfMissedMerge.
	merges   store.MergeWatcher
	lostNews atomic.Uint64

	mu       sync.Mutex
	shutdown bool
	// listeners are Serve's, closed by Shutdown: the library's own
	// Shutdown is not used (see Shutdown).
	listeners map[net.Listener]struct{}
	sessions  map[*session.Session]struct{}
	// gone are the accounts links deleted lately, and when the server
	// heard of it (endMerged).
	gone    map[store.AccountID]time.Time
	active  int           // running session handlers
	drained chan struct{} // closed when active drops to 0 during Shutdown
}

// New returns a server ready to Serve.
func New(cfg Config) (*Server, error) {
	if cfg.Games == nil || cfg.HostKey == nil {
		return nil, errors.New("server: Config.Games and Config.HostKey are required")
	}
	if err := cfg.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("server: limits: %w", err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Observer == nil {
		cfg.Observer = nopObserver{}
	}
	cfg.Logger = slog.New(CleanLogHandler(cfg.Logger.Handler()))
	if cfg.TUI == nil {
		cfg.TUI = gameScreen(cfg.Games, cfg.Hinter)
	}
	if cfg.Races == nil {
		cfg.Races = race.New(cfg.Games)
	}
	hostKey, err := sha2HostKey(cfg.HostKey)
	if err != nil {
		return nil, fmt.Errorf("server: host key: %w", err)
	}
	s := &Server{cfg: cfg, lim: cfg.Limits, games: cfg.Games, races: cfg.Races, log: cfg.Logger, sessions: make(map[*session.Session]struct{}),
		gone: make(map[store.AccountID]time.Time), listeners: make(map[net.Listener]struct{})}
	if cfg.Motion {
		s.motion = screen.NewMotionGate(cfg.MotionScreens)
	}
	s.commands = command.New(command.Config{
		Games:       cfg.Games,
		Races:       cfg.Races,
		Logger:      cfg.Logger,
		IdleTimeout: cfg.Limits.IdleTimeout,
		BotRate:     cfg.Limits.BotRate,
		GameScreen: func(sess *session.Session, seat *game.Seat, size int) tea.Model {
			return cfg.TUI(sess, TUIEnv{Seat: seat, Size: size, Settings: sess.Settings})
		},
		RunScreen:   s.runOpened,
		Panicked:    s.panicked,
		Lines:       &s.limited,
		Bans:        cfg.Bans,
		AdminAction: cfg.Observer.AdminAction,
		Blocked:     cfg.Blocked,
	})
	s.admission = admission.New(admission.Config{
		Limits:      cfg.Limits,
		Logger:      cfg.Logger,
		Lines:       &s.limited,
		Refused:     cfg.Observer.Refused,
		OpensScreen: s.commands.OpensScreen,
		Banned:      s.bannedAddr(),
	})
	srv, err := wish.NewServer(
		func(srv *ssh.Server) error { srv.AddHostKey(hostKey); return nil },
		wish.WithVersion("ssh2048"),
		ssh.PublicKeyAuth(s.admission.AcceptKey),
		ssh.KeyboardInteractiveAuth(s.admission.AdmitGuest),
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
			//    never the server (panic.go: the goroutines this cannot
			//    reach recover for themselves).
			s.recoverSession,
		),
	)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	// Every connection passes the admission (caps) the moment it is
	// accepted, and is guarded (login grace, keepalives, idle timeout)
	// until it closes.
	srv.ConnCallback = s.admission.Admit
	// The only way to learn that a login succeeded: x/crypto calls
	// AuthLogCallback with a nil error then (and not for public keys a
	// client merely offers).
	srv.ServerConfigCallback = func(ctx ssh.Context) *gossh.ServerConfig {
		return &gossh.ServerConfig{Config: algorithms(), AuthLogCallback: func(_ gossh.ConnMetadata, method string, err error) {
			s.admission.LoggedIn(ctx, method, err)
		}}
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
		// The session's place under --max-sessions-per-conn is given back
		// when both its channel and this handler are done.
		defer admission.Release(sess.Context())
		handler(sess)
	}
	// Session channels are opened under the per-connection bounds, and
	// refused requests and channels of other types are counted as such.
	srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.admission.OpenSession, "default": s.admission.OtherChannel}
	srv.RequestHandlers = map[string]ssh.RequestHandler{"default": s.admission.GlobalRequest}
	s.ssh = srv
	s.stopBans = func() {}
	if cfg.Bans != nil {
		s.stopBans = cfg.Bans.OnBan(s.endBanned)
	}
	s.stopMerges = func() {}
	if w, ok := cfg.Games.Store().(store.MergeWatcher); ok {
		s.merges = w
		s.stopMerges = w.OnAccountsMerged(s.endMerged, func() {
			// Counted before the sessions are listed: a login tracked
			// after the listing sees the count changed (endIfMissedMerge).
			s.lostNews.Add(1)
			go s.endMissedMerges()
		})
	}
	return s, nil
}

// Connections is the number of open connections, logged in or not.
func (s *Server) Connections() int { return s.admission.Connections() }

// Serve accepts connections on l until Shutdown or Close.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		return l.Close()
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	err := s.ssh.Serve(l)
	s.mu.Lock()
	delete(s.listeners, l)
	stopped := s.shutdown
	s.mu.Unlock()
	if stopped || errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// Close drops every connection at once. Prefer Shutdown.
func (s *Server) Close() error {
	s.stopBans()
	s.stopMerges()
	return s.ssh.Close()
}

// Shutdown stops accepting connections, tells every session the server is
// restarting (their games are saved: every reply follows its commit), waits
// for the sessions to end until ctx is done, then drops what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopBans()
	s.stopMerges()
	s.games.Close()
	s.races.Close()
	s.mu.Lock()
	s.shutdown = true
	open := make([]*session.Session, 0, len(s.sessions))
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
	// No new connections. The library's Shutdown is not used: its wait
	// for the connections races the count of a connection whose login
	// completes meanwhile (a WaitGroup's Add at zero during its Wait).
	var err error
	for l := range s.listeners {
		if cerr := l.Close(); cerr != nil && !errors.Is(cerr, net.ErrClosed) {
			err = errors.Join(err, cerr)
		}
	}
	s.mu.Unlock()

	for _, sess := range open {
		sess.Notify(session.Shutdown)
	}
	// stuck: ctx ran out while sessions or logged-in connections were
	// still open; Shutdown then says so.
	stuck := false
	select {
	case <-handlersDone:
	case <-ctx.Done():
		stuck = true
	}
	// Clients close their connections once their sessions have ended
	// (OpenSSH does as soon as it has the exit status); a connection
	// closed under them loses that status and the player sees "Connection
	// reset by peer" under their goodbye. So they get a moment. Clients
	// that keep their connection open after that would hold Shutdown
	// until ctx expires: drop them then.
	closing := time.NewTimer(clientCloseWait)
	defer closing.Stop()
	for waiting := true; waiting && s.admission.LoggedInConnections() > 0; {
		select {
		case <-closing.C:
			waiting = false
		case <-ctx.Done():
			waiting, stuck = false, true
		case <-time.After(10 * time.Millisecond):
		}
	}
	closeErr := s.ssh.Close()
	if errors.Is(closeErr, net.ErrClosed) {
		closeErr = nil // a listener Serve had not let go of yet
	}
	if stuck && !errors.Is(ctx.Err(), context.Canceled) {
		err = errors.Join(err, fmt.Errorf("shutdown: connections still open: %w", ctx.Err()))
	}
	select {
	case <-handlersDone:
	case <-ctx.Done():
		return fmt.Errorf("shutdown: sessions still running: %w", ctx.Err())
	}
	return errors.Join(err, closeErr)
}

// clientCloseWait is how long Shutdown waits, once every session has
// ended, for the clients to close their connections themselves.
const clientCloseWait = time.Second

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

// track registers a session for the notices that end it (a shutdown, a
// ban, a merge), or says why it may not start: session.Shutdown when the
// server is shutting down, session.Moved when its account is one a link
// deleted (a login that looked its key up just before the link
// committed, which endMerged, told of the link before this, did not
// find). Under one lock with endMerged's look, so that a login reaches
// one or the other.
func (s *Server) track(sess *session.Session) (refused session.Notice) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.shutdown:
		return session.Shutdown
	case s.goneAccount(sess.Player.ID):
		return session.Moved
	}
	s.sessions[sess] = struct{}{}
	return 0
}

func (s *Server) untrack(sess *session.Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, sess)
}

// CleanLogHandler returns a handler that passes every record to h with its
// client strings escaped (session.CleanLogHandler). New wraps
// Config.Logger's handler in it; a program can also set it as slog's
// default, which the SSH library logs to.
func CleanLogHandler(h slog.Handler) slog.Handler { return session.CleanLogHandler(h) }
