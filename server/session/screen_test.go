package session

import (
	"testing"

	"charm.land/ssh"
)

type envSession struct {
	ssh.Session
	env []string
}

func (e envSession) Environ() []string { return e.env }

func TestWantsReader(t *testing.T) {
	for _, tt := range []struct {
		env  []string
		want bool
	}{
		{nil, false},
		{[]string{"SSH2048_SCREEN=reader"}, true},
		{[]string{"LANG=C", "SSH2048_SCREEN=reader"}, true},
		{[]string{"SSH2048_SCREEN=Reader"}, false},
		{[]string{"SSH2048_SCREEN=reader", "SSH2048_SCREEN=game"}, false},
		{[]string{"SSH2048_SCREEN=game", "SSH2048_SCREEN=reader"}, true},
		{[]string{"SSH2048_SCREENX=reader"}, false},
		{[]string{"SSH2048_SCREEN"}, false},
	} {
		if got := WantsReader(envSession{env: tt.env}); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.env, got, tt.want)
		}
	}
}
