package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestLoadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--help"}, 0, "usage: ssh2048 load"},
		{nil, 2, "--addr is required"},
		{[]string{"--addr", "x:1", "--mode", "gui"}, 2, "want tui or bot"},
		{[]string{"--addr", "x:1", "--sessions", "0"}, 2, "--sessions 0"},
		{[]string{"--addr", "x:1", "--rate", "100"}, 2, "--rate 100"},
		{[]string{"--addr", "x:1", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--nope"}, 2, "flag provided but not defined"},
	} {
		var out, errOut bytes.Buffer
		code := runLoad(tc.args, &out, &errOut)
		if code != tc.code || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, errOut.String(), tc.code, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("%q: wrote %q on stdout", tc.args, out.String())
		}
	}
}
