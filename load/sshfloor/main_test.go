package main

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/load"
)

// The floor answers every key of `ssh2048 load`'s game screens with one
// frame of frameBytes, and ends each session cleanly.
func TestLoadAgainstTheFloor(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve(l) }()
	t.Cleanup(func() {
		l.Close()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})

	cfg := load.DefaultConfig()
	cfg.Addr, cfg.Mode = l.Addr().String(), load.ModeTUI
	cfg.Sessions, cfg.Rate, cfg.Duration = 4, 5, time.Second
	cfg.Verify = false
	rep, err := load.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 0 || rep.SessionsCompleted != cfg.Sessions {
		t.Fatalf("errors %v (%v), %d of %d sessions completed", rep.Errors, rep.ErrorSamples, rep.SessionsCompleted, cfg.Sessions)
	}
	if k := rep.Keys; k.Sent == 0 || k.Answered != k.Sent {
		t.Errorf("keys %+v: want every key answered by a frame", k)
	}
	if b := rep.FrameBytes; b.Mean != frameBytes {
		t.Errorf("frames of %v bytes on average, want %d", b.Mean, frameBytes)
	}
}

// A client that connects and never sends a byte is let go once the
// handshake's time is up, as the server's own stalled logins are: the
// floor holds nothing for it after that.
func TestStalledClientIsLetGo(t *testing.T) {
	old := handshakeTimeout
	handshakeTimeout = 200 * time.Millisecond
	t.Cleanup(func() { handshakeTimeout = old })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve(l) }()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	if _, err := io.Copy(io.Discard, c); err != nil { // the server's version line, then EOF
		t.Fatalf("the floor did not hang up on a silent client: %v after %v", err, time.Since(start))
	}
	l.Close()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}
