package server

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/internal/flagtext"
	"github.com/ssh2048/ssh2048/wire"
)

// command is one exec command. run returns the exit status.
type command struct {
	name    string
	args    string // usage after the name
	summary string
	run     func(s *Server, sess *session, args []string) int
	// screen: with a terminal, the command runs a screen (runScreen),
	// whose handler serves the session's requests while it waits (see
	// boundedSession.serve).
	screen bool
}

// commands is the exec command table, in the order help lists them.
var commands []command

func init() {
	// Assigned in init: help refers to the table it is in.
	commands = []command{
		{"scores", "[--size N] [--limit K] [--offset N] [--bots] [--daily [--date YYYY-MM-DD]] [--races] [--json]", "the leaderboard; --daily a day's challenge, --races the race ratings", (*Server).runScores, false},
		{"bot", "[--size N] [--new] [--race [--room WORD]]", "play through the bot protocol (JSON lines on stdin/stdout); --race in a race", (*Server).runBot, false},
		{"play", "[--size N]", "the game screen, as ssh -t with no command opens it; --size at that board size (needs ssh -t)", (*Server).runPlay, true},
		{"daily", "[--size N]", "today's daily challenge: the same tiles for everyone, one attempt a day (needs ssh -t)", (*Server).runDaily, true},
		{"race", "[--size N] [--room WORD]", "race others on the same tiles: the public lobby, or a private room (needs ssh -t)", (*Server).runRace, true},
		{"export", "GAME", "print the record of an ended game (docs/record-format.md)", (*Server).runExport, false},
		{"verify", "GAME", "replay a stored game and check its score, largest tile, win and board", (*Server).runVerify, false},
		{"watch", "NAME|#TAG|GAME", "watch a game being played, as its player sees it (needs ssh -t)", (*Server).runWatch, true},
		{"tv", "[--size N]", "watch the best game being played right now (needs ssh -t)", (*Server).runTV, true},
		{"replay", "GAME", "replay a stored game move by move (needs ssh -t)", (*Server).runReplay, true},
		{"history", "", "your recent and best games, to replay (needs ssh -t)", (*Server).runHistory, true},
		{"help", "", "this list", (*Server).runHelp, false},
	}
}

// opensScreen reports whether args, an exec request's command split as
// the session splits it, names a command that runs a screen.
func opensScreen(args []string) bool {
	if len(args) == 0 {
		return false
	}
	c := commandNamed(args[0])
	return c != nil && c.screen
}

// sizeOK reports whether size, command's --size, is a board size, and
// tells the client why not.
func sizeOK(sess *session, command string, size int) bool {
	if size < engine.MinSize || size > engine.MaxSize {
		fmt.Fprintf(sess.Stderr(), "%s: --size %d: must be %d to %d\n", command, size, engine.MinSize, engine.MaxSize)
		return false
	}
	return true
}

// guestHint is told once to a player without a key.
// It fits 80 columns, under the board, with the key that hides it.
const guestHint = "Guest: not saved. To rank, use an SSH key: ssh-keygen -t ed25519"

// exec runs the session's command and returns its exit status.
func (s *Server) exec(sess *session) int {
	args := sess.Command()
	c := commandOf(sess, args)
	if c == nil {
		return wire.ExitUsage
	}
	return c.run(s, sess, args[1:])
}

// commandOf is the command args name, or nil once the client is told why
// there is none. Apart from exec because a race or a watch runs under
// exec's frame for as long as it lasts: the messages' arguments would
// make that frame 300 bytes, and the handler's stack one size larger.
func commandOf(sess *session, args []string) *command {
	if len(args) == 0 { // split by shell rules; empty if the quoting is broken
		fmt.Fprintf(sess.Stderr(), "ssh2048: cannot parse command %q; try `help`\n", sess.RawCommand())
		return nil
	}
	if c := commandNamed(args[0]); c != nil {
		return c
	}
	fmt.Fprintf(sess.Stderr(), "ssh2048: unknown command %q; try `help`\n", args[0])
	return nil
}

// commandNamed is the exec command called name, nil if none.
func commandNamed(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func (s *Server) runHelp(sess *session, args []string) int {
	fs := newFlagSet(sess, "help", "")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	writeHelp(sess, textWidth(sess))
	return wire.ExitOK
}

// writeHelp writes the list of commands, wrapped to width.
func writeHelp(w io.Writer, width int) {
	var b strings.Builder
	b.WriteString("ssh2048: 2048 over SSH. Without a command, `ssh -t` opens the game.\n\nCommands:\n")
	for _, c := range commands {
		b.WriteString(flagtext.Wrap(strings.TrimSpace(c.name+" "+c.args), width, "  ", strings.Repeat(" ", len(c.name)+3)))
		b.WriteString("\n" + flagtext.Wrap(c.summary, width, "      ", "      ") + "\n")
	}
	b.WriteString("\nEvery command takes --help.\n" +
		"Exit status (commands and the game screen): 0 ok, 1 server error, 2 usage,\n" +
		"3 taken over by a newer session, 4 server restarting (your game is saved;\n" +
		"reconnect), 5 refuted (verify), 6 no such game, or no one playing it (watch),\n" +
		"7 game still in play (export; watch, replay: today's daily), 9 closed for\n" +
		"inactivity (no input, or no answer to keepalives), 10 race room full or\n" +
		"started.\n")
	io.WriteString(w, flagtext.Wrap(b.String(), width, "", ""))
}

// textWidth is the width the session's text is wrapped to: its window's,
// or 80 columns without a terminal.
func textWidth(sess *session) int {
	if pty, _, ok := sess.Pty(); ok && pty.Window.Width > 0 {
		return pty.Window.Width
	}
	return flagtext.Width
}

// commandFlags is an exec command's flags, and the session its help and
// errors go to.
type commandFlags struct {
	*flag.FlagSet
	sess *session
	args string       // the usage after the name
	buf  bytes.Buffer // what the flag package writes while parsing
}

// newFlagSet returns an exec command's flag set: asked for with --help,
// the usage goes to stdout, as the answer asked for; after a mistake, the
// error and the usage go to stderr.
func newFlagSet(sess *session, name, args string) *commandFlags {
	fs := &commandFlags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), sess: sess, args: args}
	fs.SetOutput(&fs.buf)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), fs.usage())
		flagtext.PrintDefaults(fs.Output(), fs.FlagSet, textWidth(sess))
	}
	return fs
}

// usage is the usage line, wrapped to the session's width under the
// command's arguments.
func (fs *commandFlags) usage() string {
	line := strings.TrimSpace("usage: " + fs.Name() + " " + fs.args)
	return flagtext.Wrap(line, textWidth(fs.sess), "", strings.Repeat(" ", len("usage: "+fs.Name()+" ")))
}

// mistake tells the client what was wrong with the command line, in one
// line, and the command's usage on the next (not every flag's help:
// `--help` gives that), on stderr; it returns the status for it.
func (fs *commandFlags) mistake(format string, a ...any) int {
	fmt.Fprintf(fs.sess.Stderr(), "%s: %s\n%s\n", fs.Name(), fmt.Sprintf(format, a...), fs.usage())
	return wire.ExitUsage
}

// parse parses args and answers --help and malformed flags; when ok is
// false the command must return code.
func (fs *commandFlags) parse(args []string) (code int, ok bool) {
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		_, _ = fs.sess.Write(fs.buf.Bytes())
		return wire.ExitOK, false
	case err != nil:
		// The flag package's own message ("flag provided but not defined:
		// -x", written "unknown flag --x"), without the flag table it
		// prints after it.
		return fs.mistake("%s", flagtext.Error(err)), false
	}
	return wire.ExitOK, true
}

// parseFlags parses args; when it returns ok=false the command must return
// code: 0 after --help, wire.ExitUsage after a mistake (already reported).
func parseFlags(fs *commandFlags, args []string) (code int, ok bool) {
	if code, ok := fs.parse(args); !ok {
		return code, false
	}
	if fs.NArg() > 0 {
		return fs.mistake("unexpected argument %.40q", fs.Arg(0)), false
	}
	return wire.ExitOK, true
}

// parseScreenFlags is parseFlags for a command that opens a screen at a
// board size: *size is checked, and the session must have a terminal.
func parseScreenFlags(fs *commandFlags, args []string, size *int) (code int, ok bool) {
	if code, ok := parseFlags(fs, args); !ok {
		return code, false
	}
	if !sizeOK(fs.sess, fs.Name(), *size) || !hasTerminal(fs.sess, fs.Name()) {
		return wire.ExitUsage, false
	}
	return wire.ExitOK, true
}
