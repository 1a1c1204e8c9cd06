package command

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ssh2048/ssh2048/wire"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 65)
	tests := []struct {
		name  string
		input string
		want  []string // "!" marks errLineTooLong
	}{
		{"empty", "", nil},
		{"lines", "up\ndown\n", []string{"up", "down"}},
		{"crlf", "up\r\nl\r\n", []string{"up", "l"}},
		{"cr from a raw terminal", "up\rleft\r", []string{"up", "left"}},
		{"cr cr", "up\r\rl", []string{"up", "", "l"}},
		{"lf cr", "up\n\rl", []string{"up", "", "l"}},
		{"last line without newline", "up\nleft", []string{"up", "left"}},
		{"blank lines", "\n\n", []string{"", ""}},
		{"64 bytes", strings.Repeat("y", 64) + "\n", []string{strings.Repeat("y", 64)}},
		{"64 bytes and CRLF", strings.Repeat("y", 64) + "\r\n", []string{strings.Repeat("y", 64)}},
		{"65 bytes", long + "\nup\n", []string{"!", "up"}},
		{"65 bytes then CR", long + "\r\nup\n", []string{"!", "up"}},
		{"huge line", strings.Repeat("z", 100000) + "\nup\n", []string{"!", "up"}},
		{"huge last line", "up\n" + strings.Repeat("z", 1000), []string{"up", "!"}},
	}
	for _, tt := range tests {
		for _, slow := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.input)
			if slow {
				r = iotest.OneByteReader(r)
			}
			lr := newLineReader(r, wire.MaxLineBytes)
			var got []string
			for {
				line, err := lr.ReadLine()
				if errors.Is(err, io.EOF) {
					break
				}
				if errors.Is(err, errLineTooLong) {
					line = "!"
				} else if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				got = append(got, line)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("%s (one byte at a time: %v): got %q, want %q", tt.name, slow, got, tt.want)
			}
		}
	}
}

// FuzzLineReader: every line returned is within the limit and free of
// line ends, and the lines (with the over-long ones) account for the
// input's line ends.
func FuzzLineReader(f *testing.F) {
	f.Add("up\ndown\r\n" + strings.Repeat("x", 70) + "\nl")
	f.Add("\r\r\n\n")
	f.Fuzz(func(t *testing.T, input string) {
		lr := newLineReader(strings.NewReader(input), 8)
		n := 0
		for {
			line, err := lr.ReadLine()
			if errors.Is(err, io.EOF) {
				break
			}
			n++
			if n > len(input)+1 {
				t.Fatal("more lines than input bytes")
			}
			if errors.Is(err, errLineTooLong) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(line) > 8 || strings.ContainsAny(line, "\r\n") {
				t.Fatalf("line %q", line)
			}
		}
		ends := strings.ReplaceAll(strings.ReplaceAll(input, "\r\n", "\n"), "\r", "\n")
		want := strings.Count(ends, "\n")
		if ends != "" && !strings.HasSuffix(ends, "\n") {
			want++
		}
		if n != want {
			t.Fatalf("%d lines from %q, want %d", n, input, want)
		}
	})
}
