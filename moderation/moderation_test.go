package moderation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"30m", 30 * time.Minute, ""},
		{"12h", 12 * time.Hour, ""},
		{"7d", 7 * 24 * time.Hour, ""},
		{"2w", 14 * 24 * time.Hour, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"", 0, "empty"},
		{"d", 0, "not a duration"},
		{"3x", 0, "not a duration"},
		{"-1d", 0, "more than nothing"},
		{"0s", 0, "more than nothing"},
		{"99999999999d", 0, "ten years"},
		{"3651d", 0, "ten years"},
	} {
		got, err := ParseDuration(c.in)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, %q", c.in, got, err, c.want, c.err)
		}
	}
}

func TestParseRange(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"10.1.2.3/8", "10.0.0.0/8"},
		{"192.0.2.7", "192.0.2.7/32"},
		{"::ffff:192.0.2.7", "192.0.2.7/32"},
		{"::ffff:10.0.0.0/104", "10.0.0.0/8"},
		{"2001:db8::1/32", "2001:db8::/32"},
		{"10.0.0.0/33", ""},
		{"0.0.0.0/0", ""},
		{"::/0", ""},
		{"fe80::1%eth0/64", ""},
		{"fe80::1%eth0", ""}, // a zone is refused, not dropped: it would ban fe80::1 on every link
		{"300.1.2.3", ""},
	} {
		p, err := parseRange(c.in)
		if got := p.String(); err != nil && c.want != "" || err == nil && got != c.want {
			t.Errorf("parseRange(%q) = %s, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestBlocklist: words are matched as names are compared, case folded
// and by look-alike skeleton, anywhere in the name.
func TestBlocklist(t *testing.T) {
	b := NewBlocklist("admin", "  ", "Mod")
	for name, want := range map[string]bool{
		"admin":         true,
		"TheADMIN":      true,
		"аdmin":         true, // Cyrillic а
		"adm1n":         false,
		"a d m i n":     true,
		"moderator":     true,
		"MOD":           true,
		"player":        false,
		"ad\u200bmin":   true, // a zero-width space is dropped first
		"\x1b[31madmin": true,
	} {
		if got := b.Blocks(name); got != want {
			t.Errorf("Blocks(%q) = %v, want %v", name, got, want)
		}
	}
	if (Blocklist{}).Blocks("admin") {
		t.Error("the empty list blocks")
	}
}

func TestReadAdminKeys(t *testing.T) {
	dir := t.TempDir()
	pub := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@box"
	key, _, _, _, err := gossh.ParseAuthorizedKey([]byte(pub))
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good")
	os.WriteFile(good, []byte("# admins\n\n"+pub+"\nno-pty "+pub+"\n"), 0o600)
	keys, err := ReadAdminKeys(good)
	if err != nil || len(keys) != 2 || keys[0].Fingerprint != gossh.FingerprintSHA256(key) || keys[0].Comment != "alice@box" {
		t.Fatalf("ReadAdminKeys: %+v, %v", keys, err)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte(pub+"\nnot a key\n"), 0o600)
	if _, err := ReadAdminKeys(bad); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("a bad line: %v, want an error naming line 2", err)
	}
	if _, err := ReadAdminKeys(filepath.Join(dir, "none")); err == nil {
		t.Fatal("a missing file is no error")
	}
}
