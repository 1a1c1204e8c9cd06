package main

import (
	"flag"
	"fmt"
	"io"
)

func runHelp(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("help", "usage: ssh2048 help", stderr)
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

// newFlagSet returns a subcommand's flag set: errors and usage (the text,
// then the flags) go to stderr.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args; ok=false means return code: 0 after --help, 2 after
// a mistake (already reported on the flag set's output).
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err == flag.ErrHelp {
		return 0, false
	} else if err != nil {
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "ssh2048 %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return 2, false
	}
	return 0, true
}
