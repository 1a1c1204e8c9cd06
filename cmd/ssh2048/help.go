package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
)

func runHelp(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("help", "usage: ssh2048 help", stdout, stderr)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	fmt.Fprintln(stdout, "ssh2048: the game 2048 over SSH.")
	fmt.Fprintln(stdout, "\nusage: ssh2048 [subcommand] [flags]\n\nSubcommands:")
	for _, c := range subcommands {
		fmt.Fprintf(stdout, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(stdout, "\nEach subcommand takes --help.")
	return 0
}

// flagSet is a subcommand's flags, and where its help and its errors go.
type flagSet struct {
	*flag.FlagSet
	stdout, stderr io.Writer
	buf            bytes.Buffer // what the flag package writes while parsing
}

// newFlagSet returns a subcommand's flag set: asked for with --help, the
// usage (the text, then the flags) goes to stdout, as the answer asked
// for; after a mistake, the error and the usage go to stderr.
func newFlagSet(name, usage string, stdout, stderr io.Writer) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), stdout: stdout, stderr: stderr}
	fs.SetOutput(&fs.buf)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args; ok=false means return code: 0 after --help, 2 after
// a mistake (already reported on stderr).
func parse(fs *flagSet, args []string) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		io.Copy(fs.stdout, &fs.buf)
		return 0, false
	case err != nil:
		io.Copy(fs.stderr, &fs.buf)
		return 2, false
	case fs.NArg() > 0:
		fmt.Fprintf(fs.stderr, "ssh2048 %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		io.Copy(fs.stderr, &fs.buf)
		return 2, false
	}
	return 0, true
}
