package session

import (
	"runtime/debug"

	"github.com/ssh2048/ssh2048/internal/workers"
)

// A goroutine's stack grows to the deepest call it has made and stays
// that size until a garbage collection finds it mostly unused, and a
// collection only halves it. A session's handler waits for most of its
// life, shallow, on a stack that its setup (a database read, the model's
// first Update, a write through the connection's cipher) grew to several
// times what waiting needs: every idle screen held that stack for
// nothing, and the garbage collector's heap goal, which counts stacks,
// let the heap grow by a share of it on top (the commit that brought this
// in has the figures). So the deep, short work of a long-lived goroutine
// runs elsewhere (OnFreshStack), and the waiting goroutine stays small.
// Elsewhere is a worker of the process's shared pool (internal/workers)
// rather than a goroutine started for it: a new goroutine grows its stack
// by copying it whole, several times for each piece of a login's setup,
// where a worker has grown its stack already.

// OnFreshStack runs f on a worker of the shared pool and returns when f
// does; a panic in f is raised again in the caller, with f's stack (see
// the server's panicked), so that the caller's recover sees it as its own.
func OnFreshStack(f func()) {
	var raised *FreshStackPanic
	done := make(chan struct{})
	workers.Go(func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil {
				raised = &FreshStackPanic{Value: v, Stack: debug.Stack()}
			}
		}()
		f()
	})
	<-done
	if raised != nil {
		panic(raised)
	}
}

// FreshStackPanic is a panic of f in OnFreshStack, raised again; Value is
// what f panicked with, Stack where.
type FreshStackPanic struct {
	Value any
	Stack []byte
}
