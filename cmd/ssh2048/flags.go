package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ssh2048/ssh2048/internal/flagtext"
)

// envPrefix names every flag's environment fallback: --max-conns is also
// $SSH2048_MAX_CONNS. The command line wins over the environment, which
// wins over the default; the flag's help says which variable it reads.
const envPrefix = "SSH2048_"

// envName is the environment variable behind flag name.
func envName(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// flagSet is a subcommand's flags, and where its help and its errors go.
type flagSet struct {
	*flag.FlagSet
	stdout, stderr io.Writer
	buf            bytes.Buffer // what the flag package writes while parsing
}

// newFlagSet returns a subcommand's flag set: asked for with --help, the
// usage (the text, then the flags) goes to stdout, as the answer asked
// for; a mistake in a flag is one line on stderr, and a missing or extra
// argument is told with the usage.
func newFlagSet(name, usage string, stdout, stderr io.Writer) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), stdout: stdout, stderr: stderr}
	fs.SetOutput(&fs.buf)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), usage)
		flagtext.PrintDefaults(fs.Output(), fs.FlagSet, flagtext.Width)
	}
	return fs
}

// parse reads each flag's environment variable, then args, which must be
// flags only; ok=false means return code: 0 after --help, 2 after a
// mistake (already reported on stderr).
func parse(fs *flagSet, args []string) (code int, ok bool) {
	return parseWithArgs(fs, args, 0)
}

// parseWithArgs is parse for a subcommand that takes n arguments after
// its flags (fs.Args).
func parseWithArgs(fs *flagSet, args []string, n int) (code int, ok bool) {
	code, ok = parseFlags(fs.FlagSet, args, n)
	out := fs.stderr
	if ok || code == 0 {
		out = fs.stdout // the help asked for
	}
	io.Copy(out, &fs.buf)
	return code, ok
}

// parseFlags does the work of parseWithArgs, writing on fs's output.
func parseFlags(fs *flag.FlagSet, args []string, n int) (code int, ok bool) {
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		env := envName(f.Name)
		f.Usage += " [$" + env + "]"
		// The environment goes through the flag's own parser, so it is
		// checked exactly as the command line is.
		if v, set := os.LookupEnv(env); set && v != "" && envErr == nil {
			if err := fs.Set(f.Name, v); err != nil {
				envErr = fmt.Errorf("$%s: %w", env, err)
			}
		}
	})
	if envErr != nil {
		fmt.Fprintf(fs.Output(), "ssh2048 %s: %v\n", fs.Name(), envErr)
		return 2, false
	}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0, false
	} else if err != nil {
		// The flag package wrote its bare message ("flag provided but not
		// defined: -x") and the usage; say it again in one line naming
		// the subcommand and the flag as --x, as every other mistake in a
		// flag is told: the usage of serve is a page, which would push
		// the line that matters off the screen.
		if b, ok := fs.Output().(*bytes.Buffer); ok {
			b.Reset()
		}
		fmt.Fprintf(fs.Output(), "ssh2048 %s: %s; see `ssh2048 %[1]s --help`\n", fs.Name(), flagtext.Error(err))
		return 2, false
	}
	switch {
	case fs.NArg() > n:
		fmt.Fprintf(fs.Output(), "ssh2048 %s: unexpected argument %q\n", fs.Name(), fs.Arg(n))
		fs.Usage()
		return 2, false
	case fs.NArg() < n:
		fmt.Fprintf(fs.Output(), "ssh2048 %s: missing argument (usage below)\n", fs.Name())
		fs.Usage()
		return 2, false
	}
	return 0, true
}
