package command

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type panickyReader struct{}

func (panickyReader) Read([]byte) (int, error) { panic("bug in a reader") }

// TestReadLinesPanic: a panic while reading bot input reaches the bot loop
// as a *readerPanic with its stack, before the lines end, instead of ending
// the process.
func TestReadLinesPanic(t *testing.T) {
	out := make(chan lineResult)
	stop := make(chan struct{})
	defer close(stop)
	go readLines(panickyReader{}, out, stop)
	select {
	case in, ok := <-out:
		var rp *readerPanic
		if !ok || !errors.As(in.err, &rp) {
			t.Fatalf("got %+v, %v; want a *readerPanic", in, ok)
		}
		if rp.value != "bug in a reader" || !strings.Contains(string(rp.stack), "panickyReader") {
			t.Errorf("panic %v, stack:\n%s", rp.value, rp.stack)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("nothing from readLines")
	}
	if _, ok := <-out; ok {
		t.Error("lines go on after the panic")
	}
}
