package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ssh2048/ssh2048/load"
)

// runLoad is `ssh2048 load`: package load does the work; a signal ends the
// run early and still prints the report.
func runLoad(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return load.Main(ctx, args, stdout, stderr)
}
