// Package pgtest starts a real PostgreSQL server for tests, from the
// binaries of the Debian package (apt-get install postgresql): initdb and
// pg_ctl into a temporary directory, listening on a free loopback port.
// Tests skip, saying what to install, only when PostgreSQL is not
// installed, and never when $CI is true: CI must run them.
//
// A test binary shares one server: call Run from TestMain, which stops it
// when the tests are done, and Database for a fresh, empty database per
// test.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is one PostgreSQL server started by the tests.
type Server struct {
	dir  string // data directory, log and socket
	bin  string // directory of initdb, pg_ctl and postgres
	port int
	as   string // user the server runs as ("" for the current one)
}

var (
	shared     *Server
	sharedErr  error
	sharedOnce sync.Once
	databases  int
	dbMu       sync.Mutex
)

// Run runs the tests, then stops the shared server if one was started.
func Run(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	return code
}

// Shared returns the test binary's server, starting it the first time.
func Shared(tb testing.TB) *Server {
	tb.Helper()
	sharedOnce.Do(func() { shared, sharedErr = Start() })
	if sharedErr != nil {
		fail(tb, sharedErr)
	}
	return shared
}

// Database creates a fresh database on the shared server and returns its
// URL; it is dropped when the test ends.
func Database(tb testing.TB) string {
	tb.Helper()
	return Shared(tb).Database(tb)
}

// errNotInstalled: no PostgreSQL binaries were found.
type errNotInstalled struct{}

func (errNotInstalled) Error() string {
	return "PostgreSQL is not installed (want initdb and pg_ctl on $PATH or in /usr/lib/postgresql/*/bin): apt-get install postgresql"
}

func fail(tb testing.TB, err error) {
	tb.Helper()
	if _, missing := err.(errNotInstalled); missing && os.Getenv("CI") != "true" {
		tb.Skip(err)
	}
	tb.Fatal(err)
}

// binDir finds the directory of initdb and pg_ctl: $PATH first, then the
// newest of Debian's /usr/lib/postgresql/VERSION/bin.
func binDir() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if _, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errNotInstalled{}
}

// Start initializes and starts a new server. PostgreSQL refuses to run as
// root, so under root (as CI runs) it runs as the postgres user the Debian
// package creates.
func Start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ssh2048-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, PostgreSQL needs another user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		s.as = "postgres"
	}
	if out, err := s.run("initdb", "-D", s.data(), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	if err := s.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

// run runs one of the server's programs as the server's user.
func (s *Server) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, prog)
	var cmd *exec.Cmd
	if s.as != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.as, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

// Start starts the server (again, after Stop), on the same port as
// before once it has one, and waits until it accepts connections.
func (s *Server) Start() error {
	if s.port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		s.port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -c port=%d -c unix_socket_directories=%s -c max_connections=200", s.port, s.dir)
	if out, err := s.run("pg_ctl", "-D", s.data(), "-l", filepath.Join(s.dir, "log"), "-o", opts, "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		return fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	return nil
}

// Stop stops the server at once (pg_ctl -m immediate: as a crash would,
// with no checkpoint), leaving its data for Start.
func (s *Server) Stop() error {
	if out, err := s.run("pg_ctl", "-D", s.data(), "-m", "immediate", "-w", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
	}
	return nil
}

// Close stops the server and removes its files.
func (s *Server) Close() {
	s.Stop()
	os.RemoveAll(s.dir)
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// URL is the URL of database name on the server.
func (s *Server) URL(name string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", s.Addr(), name)
}

// Database creates a fresh database and returns its URL; it is dropped
// when the test ends.
func (s *Server) Database(tb testing.TB) string {
	tb.Helper()
	dbMu.Lock()
	databases++
	name := fmt.Sprintf("t%d_%s", databases, strings.ToLower(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, tb.Name())))
	dbMu.Unlock()
	if len(name) > 60 {
		name = name[:60]
	}
	s.admin(tb, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	tb.Cleanup(func() { s.admin(tb, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)") })
	return s.URL(name)
}

func (s *Server) admin(tb testing.TB, sql string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		tb.Fatalf("connect to the test server: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}
