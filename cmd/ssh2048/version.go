package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "usage: ssh2048 version\n\nPrints the module version, VCS revision and Go version of this build.", stdout, stderr)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	fmt.Fprintln(stdout, version())
	return 0
}

// version describes the build from the information the Go toolchain
// embeds: module version, VCS revision and time, and the Go version.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "ssh2048 (no build information)"
	}
	s := "ssh2048 " + bi.Main.Version
	var rev, at, dirty string
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.time":
			at = kv.Value
		case "vcs.modified":
			if kv.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		s += " " + rev[:min(12, len(rev))] + dirty
	}
	if at != "" {
		s += " " + at
	}
	return s + " " + bi.GoVersion
}
