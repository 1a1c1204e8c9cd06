package command

import (
	"io"
	"strings"

	"github.com/ssh2048/ssh2048/internal/flagtext"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
)

// helpCommand is `help`: every command, its usage and its line, and the
// exit statuses.
func helpCommand() Command {
	return Command{
		Name:    "help",
		Summary: "this list",
		run:     (*Table).runHelp,
	}
}

func (t *Table) runHelp(sess *session.Session, fs *commandFlags, args []string) int {
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	t.writeHelp(sess, textWidth(sess))
	return wire.ExitOK
}

// writeHelp writes the list of commands, wrapped to width.
func (t *Table) writeHelp(w io.Writer, width int) {
	var b strings.Builder
	b.WriteString("ssh2048: 2048 over SSH. Without a command, `ssh -t` opens the game.\n\nCommands:\n")
	for _, c := range t.list {
		b.WriteString(flagtext.Wrap(strings.TrimSpace(c.Name+" "+c.Args), width, "  ", strings.Repeat(" ", len(c.Name)+3)))
		b.WriteString("\n" + flagtext.Wrap(c.Summary, width, "      ", "      ") + "\n")
	}
	b.WriteString("\nEvery command takes --help.\n" +
		"Exit status (commands and the game screen): 0 ok, 1 server error, 2 usage, " +
		"3 taken over by a newer session, or this key joined another account (link), " +
		"4 server restarting (your game is saved; reconnect), 5 refuted (verify), " +
		"6 no such game, or no one playing it (watch), 7 game still in play (export; " +
		"watch, replay: today's daily), 9 closed for inactivity (no input, or no answer " +
		"to keepalives), 10 race room full or started, 11 banned (stderr says until " +
		"when), 13 more than 64 KiB of input ahead of " +
		"what the session read, 20 refused (link, name, keys remove; stderr says why), " +
		"21 link: the key has games, run again with --merge.\n")
	io.WriteString(w, flagtext.Wrap(b.String(), width, "", ""))
}

// textWidth is the width the session's text is wrapped to: its window's,
// or 80 columns without a terminal.
func textWidth(sess *session.Session) int {
	if pty, _, ok := sess.Pty(); ok && pty.Window.Width > 0 {
		return pty.Window.Width
	}
	return flagtext.Width
}
