package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// errPprofNotLoopback refuses a --pprof address other machines could reach.
var errPprofNotLoopback = errors.New("--pprof must be a loopback address (127.0.0.1:PORT, [::1]:PORT or localhost:PORT)")

// checkPprofAddr refuses an address that is not a loopback one. The
// profiler shows the server's memory (goroutine stacks, heap) and lets
// whoever reaches it make the server spend CPU on a profile: it is for the
// operator on the machine, never the network. ":6060" (every interface) is
// refused, and a name is refused unless it is localhost; the address the
// listener gets is checked again once bound (see listenPprof).
func checkPprofAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--pprof %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--pprof %q: %w", addr, errPprofNotLoopback)
	}
	return nil
}

// listenPprof serves net/http/pprof's handlers on addr, a loopback
// address, until the returned listener is closed.
func listenPprof(addr string, log *slog.Logger) (net.Listener, error) {
	if err := checkPprofAddr(addr); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("pprof: listen: %w", err)
	}
	// "localhost" could resolve to anything /etc/hosts says.
	if tcp, ok := l.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		l.Close()
		return nil, fmt.Errorf("--pprof %q bound %s: %w", addr, l.Addr(), errPprofNotLoopback)
	}
	// A mux of its own: nothing else registered on http.DefaultServeMux by
	// an import shows up here.
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("pprof", "err", err)
		}
	}()
	log.Info("pprof listening", "addr", l.Addr().String())
	return l, nil
}
