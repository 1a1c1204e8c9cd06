// Command sshfloor is the floor that `ssh2048 load` measures a server
// against: a bare golang.org/x/crypto/ssh server that takes any key, opens
// a session with a PTY, and answers every read of the player's input with
// one frame the size of a game screen's move frame. What it costs a key is
// what SSH alone costs (the key exchange, the packets, the system calls),
// so a server's CPU a key less this one's is the server's own work:
//
//	go run ./load/sshfloor 127.0.0.1:23250 &
//	ssh2048 load --addr 127.0.0.1:23250 --sessions 2000 --rate 2 --duration 30s \
//	    --handshakes 16 --no-verify --server-pid PID
//
// It has no game: there is nothing to verify, hence --no-verify. Ctrl-C
// ends a session. Loopback tests only; it trusts every key.
package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: sshfloor HOST:PORT")
		os.Exit(2)
	}
	l, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("sshfloor on %s, pid %d\n", l.Addr(), os.Getpid())
	if err := serve(l); err != nil {
		log.Fatal(err)
	}
}

// handshakeTimeout bounds a connection's handshake: a client that never
// finishes it is hung up on rather than held.
var handshakeTimeout = 10 * time.Second

// frameBytes is the frame's size: about what a game screen's move frame
// takes at 80×24 (docs/performance.md, Bytes per frame).
const frameBytes = 298

// frame is what every read of input is answered with: the cursor sent
// home, then coloured text, as a frame of the game screen moves the
// cursor and changes the pen.
var frame = func() []byte {
	const tile = "\x1b[38;5;208m 2048 \x1b[m"
	b := []byte("\x1b[H")
	for len(b)+len(tile) <= frameBytes {
		b = append(b, tile...)
	}
	for len(b) < frameBytes {
		b = append(b, ' ')
	}
	return b
}()

// serve serves l until it is closed, then waits for its connections to
// end.
func serve(l net.Listener) error {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		return err
	}
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) { return nil, nil },
	}
	cfg.AddHostKey(signer)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		wg.Go(func() { serveConn(c, cfg) })
	}
}

// serveConn is one connection: its first session channel is served, any
// other refused.
func serveConn(c net.Conn, cfg *ssh.ServerConfig) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(handshakeTimeout))
	conn, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	defer conn.Close()
	c.SetDeadline(time.Time{})
	go ssh.DiscardRequests(reqs)
	served := false
	for nc := range chans {
		if served || nc.ChannelType() != "session" {
			nc.Reject(ssh.Prohibited, "one session a connection")
			continue
		}
		served = true
		ch, chReqs, err := nc.Accept()
		if err != nil {
			return
		}
		go session(ch, chReqs, conn)
	}
}

// session answers the session's requests, and once its shell starts,
// each read of input with a frame, until Ctrl-C or the client goes.
func session(ch ssh.Channel, reqs <-chan *ssh.Request, conn *ssh.ServerConn) {
	for r := range reqs {
		switch r.Type {
		case "pty-req", "env", "window-change":
			r.Reply(r.Type != "env", nil)
		case "shell":
			r.Reply(true, nil)
			go play(ch, conn)
		default:
			r.Reply(false, nil)
		}
	}
}

func play(ch ssh.Channel, conn *ssh.ServerConn) {
	defer conn.Close()
	if _, err := ch.Write([]byte("\x1b[?1049h\x1b[2J")); err != nil {
		return
	}
	buf := make([]byte, 256)
	for {
		if _, err := ch.Write(frame); err != nil {
			return
		}
		n, err := ch.Read(buf)
		if err != nil || (n > 0 && buf[0] == 3) {
			return
		}
	}
}
