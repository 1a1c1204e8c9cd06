// Package command is the SSH exec commands of ssh2048, one file each
// (scores, bot, play, daily, race, export, verify, watch, tv, replay,
// review, history, settings, whoami, link, keys, name, help), as soft-serve's
// pkg/ssh/cmd: each command is a value with its name, its usage (flags
// and arguments), its line of help and its run; Table, the dispatcher, builds the list in the order help
// shows it and runs the one an exec request names.
//
// What a command prints, its flags and its exit statuses are the contract
// of docs/bot-protocol.md and the README. A command reaches the games
// through the game service, and the server only through the hooks of its
// Config (running a screen, reporting a panic, the game screen's model):
// the server imports this package, never the other way round.
package command

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/internal/cmdline"
	"github.com/ssh2048/ssh2048/moderation"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
)

// Command is one exec command.
type Command struct {
	Name    string
	Args    string // usage after the name: flags and arguments
	Summary string // help's line for it
	// Screen: with a terminal, the command runs a screen (Config.RunScreen),
	// whose handler serves the session's requests while it waits (see
	// admission.ServesRequests).
	Screen bool
	// run runs the command with its flags, made from Name and Args, and
	// returns the exit status.
	run func(t *Table, sess *session.Session, fs *commandFlags, args []string) int
}

// Config is what the commands are given by the server.
type Config struct {
	Games  *game.Service // required
	Races  *race.Hall    // the races of Games; required
	Logger *slog.Logger  // nil: slog.Default()
	// IdleTimeout is the server's, for the lines that name it.
	IdleTimeout time.Duration
	// BotRate caps a bot session's moves a second; 0 no limit (see
	// moveLimiter).
	BotRate float64
	// GameScreen is the game screen's model for a session at board size
	// (0: the screen's own choice), playing through seat.
	GameScreen func(sess *session.Session, seat *game.Seat, size int) tea.Model
	// RunScreen runs, on the session's terminal, the screen that open
	// sets up (on a stack of its own), and returns the exit status.
	RunScreen func(sess *session.Session, open func() Screen) int
	// Panicked logs a panic of the session's code, tells the player and
	// returns the exit status.
	Panicked func(sess ssh.Session, v any, stack []byte) int
	// Lines limits the log lines a client can cause at will (a non-admin
	// trying `admin`); nil: one of the table's own.
	Lines *session.LineLimiter
	// Bans is the node's ban list, read again after each admin write;
	// nil: none.
	Bans *moderation.BanList
	// AdminAction is told of each admin write, for metrics; nil: no one.
	AdminAction func(action string)
	// Blocked is the words no name may hold (--blocked-names): `name`
	// refuses a name that holds one.
	Blocked moderation.Blocklist
}

// Screen is what a command that opens a screen set up: its model, the
// seat whose games it plays (nil for one that only shows games), the
// lines the player is told when the server ends the session, and what to
// do once the screen is over (nil: nothing); or, with no model, the exit
// status of a command that ended before its screen (a flag, a lookup).
type Screen struct {
	Model tea.Model
	Seat  *game.Seat
	Text  func(session.Notice) string
	Close func()
	Code  int
}

// closeUnopened closes what *o holds when it opened no screen: a
// command's setup defers it on every way out, a panic too.
func closeUnopened(o *Screen) {
	if o.Model == nil && o.Close != nil {
		o.Close()
	}
}

// Table is the exec commands and what they run on.
type Table struct {
	cfg       Config
	games     *game.Service
	races     *race.Hall
	viewGames *liveGames // the service as the screens that show games see it
	log       *slog.Logger
	list      []Command
}

// New returns the command table.
func New(cfg Config) *Table {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Lines == nil {
		cfg.Lines = &session.LineLimiter{}
	}
	return &Table{cfg: cfg, games: cfg.Games, races: cfg.Races, viewGames: newLiveGames(cfg.Games), log: cfg.Logger, list: commands()}
}

// commands is every command, in the order help lists them.
func commands() []Command {
	return []Command{
		scoresCommand(),
		botCommand(),
		playCommand(),
		dailyCommand(),
		raceCommand(),
		exportCommand(),
		verifyCommand(),
		watchCommand(),
		tvCommand(),
		replayCommand(),
		reviewCommand(),
		historyCommand(),
		settingsCommand(),
		whoamiCommand(),
		linkCommand(),
		keysCommand(),
		nameCommand(),
		helpCommand(),
	}
}

// Named is the command called name, nil if none.
func (t *Table) Named(name string) *Command {
	for i := range t.list {
		if t.list[i].Name == name {
			return &t.list[i]
		}
	}
	return nil
}

// OpensScreen reports whether args, an exec request's command split as
// the session splits it, names a command that runs a screen.
func (t *Table) OpensScreen(args []string) bool {
	if len(args) == 0 {
		return false
	}
	c := t.Named(args[0])
	return c != nil && c.Screen
}

// GuestHint is told once to a player without a key.
// It fits 80 columns, under the board, with the key that hides it.
const GuestHint = "Guest: not saved. To rank, use an SSH key: ssh-keygen -t ed25519"

// Run runs the session's command and returns its exit status.
func (t *Table) Run(sess *session.Session) int {
	args := sess.Command()
	if len(args) > 0 && args[0] == adminName {
		return t.runAdmin(sess, args)
	}
	c := t.commandOf(sess, args)
	if c == nil {
		return wire.ExitUsage
	}
	return c.run(t, sess, newFlagSet(sess, c.Name, c.Args), args[1:])
}

// commandOf is the command args name, or nil once the client is told why
// there is none. Apart from Run because a race or a watch runs under
// Run's frame for as long as it lasts: the messages' arguments would
// make that frame 300 bytes, and the handler's stack one size larger.
func (t *Table) commandOf(sess *session.Session, args []string) *Command {
	if len(args) == 0 { // split by a shell's quoting rules (cmdline); none if the quoting is broken
		why := "it holds no command"
		if _, err := cmdline.Split(sess.RawCommand()); err != nil {
			why = err.Error()
		}
		fmt.Fprintf(sess.Stderr(), "ssh2048: cannot read the command line %.40q: %s; try `help`\n", sess.RawCommand(), why)
		return nil
	}
	if c := t.Named(args[0]); c != nil {
		return c
	}
	unknownCommand(sess, args[0])
	return nil
}

// unknownCommand tells the client there is no command name.
func unknownCommand(sess *session.Session, name string) {
	fmt.Fprintf(sess.Stderr(), "ssh2048: unknown command %.40q; try `help`\n", name)
}

// runOpened runs the screen open sets up (Config.RunScreen).
// The session's settings are read first (SessionSettings): the screen's
// model is made with them.
func (t *Table) runOpened(sess *session.Session, open func() Screen) int {
	return t.cfg.RunScreen(sess, func() Screen {
		if code, ok := t.SessionSettings(sess); !ok {
			return Screen{Code: code}
		}
		return open()
	})
}

// seat is the session's seat at the game service: a game it holds that a
// newer session takes over ends this one with session.TakenOver; a merge
// that moved its game, or deleted its account, with session.Moved.
func (t *Table) seat(sess *session.Session) *game.Seat {
	return t.games.Seat(sess.Player, func(why error) {
		if errors.Is(why, game.ErrMovedAccount) || errors.Is(why, game.ErrAccountGone) {
			sess.Notify(session.Moved)
			return
		}
		sess.Notify(session.TakenOver)
	})
}

// noticeText is what the player of a game is told of n.
func (t *Table) noticeText(n session.Notice) string { return n.Text(t.cfg.IdleTimeout) }

// prefixedText is noticeText as a command's last line on stderr.
func (t *Table) prefixedText(n session.Notice) string { return "ssh2048: " + t.noticeText(n) }

// sizeOK reports whether size, command's --size, is a board size, and
// tells the client why not.
func sizeOK(sess *session.Session, command string, size int) bool {
	if size < engine.MinSize || size > engine.MaxSize {
		fmt.Fprintf(sess.Stderr(), "%s: --size %d: must be %d to %d\n", command, size, engine.MinSize, engine.MaxSize)
		return false
	}
	return true
}

// hasTerminal reports whether the session has a PTY for a screen command
// (watch, replay, race…); if not, it tells the player how to ask for one.
func hasTerminal(sess *session.Session, cmd string) bool {
	if _, _, ok := sess.Pty(); ok {
		return true
	}
	fmt.Fprintf(sess.Stderr(), "ssh2048: %s opens a screen and needs a terminal: connect with `ssh -t`\n", cmd)
	return false
}
