package command

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/ssh2048/ssh2048/internal/flagtext"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
)

// commandFlags is an exec command's flags, and the session its help and
// errors go to.
type commandFlags struct {
	*flag.FlagSet
	sess *session.Session
	args string       // the usage after the name
	buf  bytes.Buffer // what the flag package writes while parsing
}

// newFlagSet returns an exec command's flag set: asked for with --help,
// the usage goes to stdout, as the answer asked for; after a mistake, the
// error and the usage go to stderr.
func newFlagSet(sess *session.Session, name, args string) *commandFlags {
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
