package main

import (
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
