// Command ssh2048 serves the game 2048 over SSH.
//
//	ssh2048 [serve] [flags]   run the server (the default)
//	ssh2048 play [flags]      play in this terminal
//	ssh2048 ai [flags]        the AI plays seeded games headless
//	ssh2048 load [flags]      measure a server under load
//	ssh2048 verify FILE       check a game record offline
//	ssh2048 check [flags]     check the database for damage
//	ssh2048 backup DEST       copy the data directory while the server runs
//	ssh2048 admin COMMAND     the admin commands, on the database itself
//	ssh2048 version           print the build's version
//	ssh2048 help              list the subcommands
//
// Each subcommand lives in its own file and takes --help.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// subcommand is one of the binary's subcommands; run returns the exit status.
type subcommand struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var subcommands []subcommand

func init() {
	// Assigned in init: help lists the table it is in.
	subcommands = []subcommand{
		{"serve", "run the SSH server (the default)", runServe},
		{"play", "play in this terminal, against the local data directory", runPlay},
		{"ai", "let the AI play seeded games and report how it did", runAI},
		{"load", "measure a server with many concurrent sessions", runLoad},
		{"verify", "check a game record offline: replay its moves and confirm or refute its claims", runVerify},
		{"check", "check the database for damage", runCheck},
		{"backup", "copy the database consistently while the server runs, into a new data directory", runBackup},
		{"admin", "the admin commands (ban, rename, hide, audit …) on the database itself", runAdmin},
		{"version", "print the version of this build", runVersion},
		{"help", "list the subcommands", runHelp},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand; with none, or only flags, it serves.
func run(args []string, stdout, stderr io.Writer) int {
	name := "serve"
	switch {
	case len(args) > 0 && isHelpFlag(args[0]):
		name, args = "help", args[1:]
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		name, args = args[0], args[1:]
	}
	for _, c := range subcommands {
		if c.name == name {
			return c.run(args, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "ssh2048: unknown subcommand %q; run `ssh2048 help`\n", name)
	return 2
}

func isHelpFlag(s string) bool { return s == "-h" || s == "-help" || s == "--help" }
