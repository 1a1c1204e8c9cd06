package store

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/text/unicode/norm"
)

// GeneratedPrefix starts the names GeneratedName makes; no one may claim
// a name that starts with it, so a generated name never takes a name
// someone chose.
const GeneratedPrefix = "player-"

// genericNames are the user names ssh sends when the player never chose
// one (the login of a fresh machine, a cloud image, a tutorial's): a new
// account is not named after them. They are reserved too.
var genericNames = []string{
	"root", "admin", "administrator", "ubuntu", "debian", "centos", "fedora", "rocky", "alma",
	"ec2-user", "azureuser", "opc", "cloud-user", "vagrant", "docker", "pi", "user", "users",
	"guest", "test", "tester", "testing", "demo", "default", "git", "ssh", "sshd", "nobody",
	"anonymous", "anon", "player", "server", "system", "sysadmin", "operator", "oracle", "postgres",
	"mysql", "www-data", "www", "ftp", "mail", "bin", "daemon", "login", "shell", "localhost",
	"kali", "alpine", "arch", "core", "deploy", "dev", "info", "support", "me", "null",
}

// reservedNames may not be claimed although no ssh client sends them by
// default: they would pass for the server's own voice.
var reservedNames = []string{"ssh2048", "moderator", "mod", "staff", "official", "everyone", "undefined"}

var reservedKeys = func() map[string]bool {
	m := make(map[string]bool)
	for _, n := range append(append([]string{}, genericNames...), reservedNames...) {
		m[NameKey(n)] = true
	}
	return m
}()

// NameKey is what makes two names one: "Ann", "ANN", "аnn" with a
// Cyrillic а, "Ζed" with a Greek capital zeta and "zed", "rn" and "m".
// The stores keep one account per key. Case folding first would lose
// the capitals' look-alikes (Ζ folds to ζ, which looks like no z), and
// the skeleton first would tell cases apart where it maps a capital
// alone (I to l), so the name is upper-cased, reduced to the skeleton of
// its capitals (NameSkeleton, which folds after), and reduced again for
// the look-alikes of small letters.
func NameKey(name string) string {
	return NameSkeleton(NameSkeleton(strings.ToUpper(norm.NFKC.String(name))))
}

// CheckName returns the name a player asked for, its runs of spaces made
// one, or an error wrapping ErrNameInvalid that says what is wrong with it
// in words fit for the player.
func CheckName(raw string) (string, error) {
	for _, r := range raw {
		if unicode.IsControl(r) || invisible(r) || (!unicode.IsGraphic(r) && !unicode.IsSpace(r)) {
			return "", fmt.Errorf("%w: it holds control or invisible characters", ErrNameInvalid)
		}
	}
	name := strings.Join(strings.Fields(raw), " ")
	switch {
	case name == "":
		return "", fmt.Errorf("%w: it is empty", ErrNameInvalid)
	case len(name) > maxNameInput || ansi.StringWidth(name) > MaxNameWidth:
		return "", fmt.Errorf("%w: it is longer than %d columns", ErrNameInvalid, MaxNameWidth)
	case SanitizeName(name) != name:
		return "", fmt.Errorf("%w: it holds characters a name cannot show", ErrNameInvalid)
	case reservedKeys[NameKey(name)]:
		return "", fmt.Errorf("%w: %q is reserved", ErrNameInvalid, name)
	case strings.HasPrefix(NameKey(name), NameKey(GeneratedPrefix)):
		return "", fmt.Errorf("%w: names starting %q are the server's", ErrNameInvalid, GeneratedPrefix)
	}
	return name, nil
}

// ProposeName is the name a new account is offered from the user name
// of its first connection: the name cleaned, if CheckName takes it (a
// generic login such as root or ubuntu it does not); ok false otherwise.
func ProposeName(user string) (name string, ok bool) {
	name, err := CheckName(SanitizeName(user))
	return name, err == nil
}

// GeneratedName is a name for an account whose user name could not be
// its name: GeneratedPrefix and hexDigits random hex digits.
func GeneratedName(hexDigits int) string {
	b := make([]byte, (hexDigits+1)/2)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return GeneratedPrefix + hex.EncodeToString(b)[:hexDigits]
}
