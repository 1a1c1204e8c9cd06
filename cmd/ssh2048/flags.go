package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// envPrefix names every flag's environment fallback: --max-conns is also
// $SSH2048_MAX_CONNS. The command line wins over the environment, which
// wins over the default; the flag's help says which variable it reads.
const envPrefix = "SSH2048_"

// envName is the environment variable behind flag name.
func envName(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
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

// parse reads each flag's environment variable, then args, which must be
// flags only; ok=false means return code: 0 after --help, 2 after a
// mistake (already reported on the flag set's output).
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	return parseWithArgs(fs, args, 0)
}

// parseWithArgs is parse for a subcommand that takes n arguments after
// its flags (fs.Args).
func parseWithArgs(fs *flag.FlagSet, args []string, n int) (code int, ok bool) {
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
		return 2, false
	}
	switch {
	case fs.NArg() > n:
		fmt.Fprintf(fs.Output(), "ssh2048 %s: unexpected argument %q\n", fs.Name(), fs.Arg(n))
		fs.Usage()
		return 2, false
	case fs.NArg() < n:
		fmt.Fprintf(fs.Output(), "ssh2048 %s: want %d argument(s)\n", fs.Name(), n)
		fs.Usage()
		return 2, false
	}
	return 0, true
}
