package web

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// sshCommand is how a page tells a visitor to reach this server over
// SSH: ssh [-t] [-p PORT] HOST.
type sshCommand struct {
	TTY  bool   // -t: for a command that opens a screen (without a command, ssh asks for a terminal anyway)
	Port string // "" for 22
	Host string // "" when the request's host is not one to repeat: the page says "this host"
}

// sshCommand is the command for the host r reached the site by.
func (s *Site) sshCommand(r *http.Request) sshCommand {
	c := sshCommand{Host: sshHost(r.Host)}
	if s.cfg.SSHPort != 22 {
		c.Port = strconv.Itoa(s.cfg.SSHPort)
	}
	return c
}

// sshHost is the host of a Host header as the command to play names it: a
// host name or an IP address (lower case, without the port or a final
// dot), or "" when it is anything else. The header is the client's to
// choose, and the command is for a visitor to paste into a shell: only
// what is plainly a host goes into it (never a word that ssh would read
// as an option, like -oProxyCommand=…).
func sshHost(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return "" // an interface of the visitor's machine names nothing on another
		}
		return a.String()
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" || len(host) > 253 {
		return ""
	}
	for label := range strings.SplitSeq(host, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return ""
		}
		for _, c := range []byte(label) {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
				return ""
			}
		}
	}
	return host
}
