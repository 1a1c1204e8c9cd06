package admission

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/server/session"
)

// chunks is a channel's input as it comes: each Read gives what is left
// of the last chunk sent, else waits for the next, then io.EOF.
type chunks struct {
	next chan []byte
	rest *[]byte
}

func newChunks() chunks { return chunks{make(chan []byte), new([]byte)} }

func (c chunks) Read(p []byte) (int, error) {
	if len(*c.rest) == 0 {
		b, ok := <-c.next
		if !ok {
			return 0, io.EOF
		}
		*c.rest = b
	}
	n := copy(p, *c.rest)
	*c.rest = (*c.rest)[n:]
	return n, nil
}

// TestUnreadInputInOrder: a handler that reads slower than its input
// comes, in reads of any size, gets every byte in order, and then the
// channel's end; nothing floods while what is held stays within the bound.
func TestUnreadInputInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var sent bytes.Buffer
	in := newChunks()
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
// flooded once, is let go, and a Read then waits for the channel to
// close, past the end of the input, rather than giving the handler what
// came before, or an end it would take for the client leaving.
func TestUnreadInputFloods(t *testing.T) {
	in := newChunks()
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
	close(in.next) // the client closes its input
	select {
	case err := <-read:
		t.Fatalf("Read gave %v at the end of the input", err)
	case <-time.After(100 * time.Millisecond):
	}
	u.close()
	if err := <-read; err != io.EOF {
		t.Fatalf("Read once the channel closed: %v", err)
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

// TestUnreadInputPushed: pushed input comes whole and in order, what
// came before the push first, however long each hand-over takes; the end
// comes once, last. Input over the bound while the handler is kept busy
// floods as read input does.
func TestUnreadInputPushed(t *testing.T) {
	t.Run("in order", func(t *testing.T) {
		in := newChunks()
		u := newUnreadInput()
		go u.fill(in, func() { t.Error("flooded") })
		var sent bytes.Buffer
		send := func(i int) {
			b := bytes.Repeat([]byte{byte(i)}, 1+i%30)
			sent.Write(b)
			in.next <- b
		}
		for i := range 10 { // held before the push
			send(i)
		}
		var got bytes.Buffer
		ends := make(chan error, 2)
		u.push(func(p []byte, err error) {
			if err != nil {
				ends <- err
				return
			}
			if len(p) == 0 {
				t.Error("an empty piece")
			}
			got.Write(p)
			time.Sleep(time.Duration(len(p)) * time.Microsecond) // a busy handler
		})
		for i := 10; i < 2000; i++ {
			send(i)
		}
		close(in.next)
		if err := <-ends; err != io.EOF {
			t.Fatalf("the end: %v", err)
		}
		if !bytes.Equal(got.Bytes(), sent.Bytes()) {
			t.Fatalf("got %d bytes, sent %d, or not in order", got.Len(), sent.Len())
		}
		time.Sleep(50 * time.Millisecond)
		if len(ends) != 0 {
			t.Fatal("the end came twice")
		}
	})
	t.Run("flood", func(t *testing.T) {
		in := newChunks()
		u := newUnreadInput()
		floods := make(chan struct{}, 1)
		go u.fill(in, func() { floods <- struct{}{} })
		stuck := make(chan struct{})
		u.push(func(p []byte, err error) {
			if err == nil {
				<-stuck // a screen whose client takes no frames
			}
		})
		defer close(stuck)
		chunk := make([]byte, 512)
		for range 2*session.MaxUnreadInput/len(chunk) + 2 {
			in.next <- chunk
		}
		select {
		case <-floods:
		case <-time.After(5 * time.Second):
			t.Fatal("no flood")
		}
	})
}
