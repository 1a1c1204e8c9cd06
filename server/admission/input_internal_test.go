package admission

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/server/session"
)

// chunks is a channel's input as it comes: each Read gives the next
// chunk, then io.EOF.
type chunks struct{ next chan []byte }

func (c chunks) Read(p []byte) (int, error) {
	b, ok := <-c.next
	if !ok {
		return 0, io.EOF
	}
	return copy(p, b), nil // chunks are no longer than the reader's buffer
}

// TestUnreadInputInOrder: a handler that reads slower than its input
// comes, in reads of any size, gets every byte in order, and then the
// channel's end; nothing floods while what is held stays within the bound.
func TestUnreadInputInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var sent bytes.Buffer
	in := chunks{make(chan []byte)}
	u := newUnreadInput()
	go u.fill(in, func() { t.Error("flooded") })
	var got bytes.Buffer
	done := make(chan error)
	go func() {
		buf := make([]byte, 700)
		for {
			n, err := u.Read(buf[:1+rng.IntN(len(buf)-1)])
			got.Write(buf[:n])
			if err != nil {
				done <- err
				return
			}
		}
	}()
	for i := range 2000 { // about 30 KB: within the bound, however late the reads
		b := bytes.Repeat([]byte{byte(i)}, 1+i%30)
		sent.Write(b)
		in.next <- b
	}
	close(in.next)
	if err := <-done; err != io.EOF {
		t.Fatalf("the end: %v, want io.EOF", err)
	}
	if !bytes.Equal(got.Bytes(), sent.Bytes()) {
		t.Fatalf("got %d bytes, sent %d, or not in order", got.Len(), sent.Len())
	}
}

// TestUnreadInputFloods: input over the bound that nothing reads calls
// flooded once, is let go, and a Read then waits for the channel's end
// rather than giving the handler what came before.
func TestUnreadInputFloods(t *testing.T) {
	in := chunks{make(chan []byte)}
	u := newUnreadInput()
	floods := make(chan struct{}, 10)
	go u.fill(in, func() { floods <- struct{}{} })
	chunk := make([]byte, 512)
	for range session.MaxUnreadInput/len(chunk) + 100 {
		in.next <- chunk
	}
	select {
	case <-floods:
	case <-time.After(5 * time.Second):
		t.Fatal("no flood")
	}
	u.mu.Lock()
	held := cap(u.held)
	u.mu.Unlock()
	if held != 0 {
		t.Fatalf("%d bytes still held after the flood", held)
	}
	read := make(chan error)
	go func() {
		_, err := u.Read(make([]byte, 10))
		read <- err
	}()
	select {
	case err := <-read:
		t.Fatalf("Read gave %v before the channel ended", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(in.next)
	if err := <-read; err != io.EOF {
		t.Fatalf("Read after the end: %v", err)
	}
	if len(floods) != 0 {
		t.Fatalf("flooded %d more times", len(floods))
	}
}

// TestUnreadInputLetsGoOfABurst: once a burst is read, its buffer goes
// with it; a small one is kept for the next keys.
func TestUnreadInputLetsGoOfABurst(t *testing.T) {
	for _, tt := range []struct {
		size int
		kept bool
	}{{16, true}, {keptCapacity, true}, {32 << 10, false}} {
		u := newUnreadInput()
		u.hold(make([]byte, tt.size))
		if _, err := io.ReadFull(u, make([]byte, tt.size)); err != nil {
			t.Fatal(err)
		}
		if kept := u.held != nil; kept != tt.kept {
			t.Errorf("a burst of %d read: buffer kept %v, want %v", tt.size, kept, tt.kept)
		}
	}
}
