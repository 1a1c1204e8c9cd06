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
		{[]string{"--addr", "x:1", "--mode", "gui"}, 2, "want tui, bot or race"},
		{[]string{"--addr", "x:1", "--sessions", "0"}, 2, "--sessions 0"},
		{[]string{"--addr", "x:1", "--rate", "100"}, 2, "--rate 100"},
		{[]string{"--addr", "x:1", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--nope"}, 2, "unknown flag --nope"},
		{[]string{"--addr", "x:1", "--server-pid", "1073741824"}, 2, "--server-pid 1073741824: no such process"},
	} {
		var out, errOut bytes.Buffer
		code := runLoad(tc.args, &out, &errOut)
		// Help asked for is the answer, on stdout; mistakes go to stderr.
		said, silent := &errOut, &out
		if tc.code == 0 {
			said, silent = &out, &errOut
		}
		if code != tc.code || !strings.Contains(said.String(), tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, out.String(), errOut.String(), tc.code, tc.want)
		}
		if silent.Len() != 0 {
			t.Errorf("%q: wrote %q on the other stream", tc.args, silent.String())
		}
	}
}
