package command

import (
	"bufio"
	"errors"
	"io"
)

// errLineTooLong reports a line over wire.MaxLineBytes. The line has been
// consumed, so reading can go on.
var errLineTooLong = errors.New("line too long")

// lineReader reads lines of at most max bytes. A line ends at "\n", "\r\n"
// or a lone "\r": a terminal in raw mode (`ssh -t`) sends "\r" for Enter.
type lineReader struct {
	r       *bufio.Reader
	max     int
	buf     []byte
	afterCR bool // the last line ended with "\r"; a "\n" next belongs to it
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 256), max: max}
}

// ReadLine returns the next line without its terminator. A line longer
// than max is discarded up to its end and reported as errLineTooLong, so
// that reading can go on. A last line without a terminator is returned
// before io.EOF.
func (lr *lineReader) ReadLine() (string, error) {
	lr.buf = lr.buf[:0]
	n := 0 // bytes in the line, kept or not
	for {
		c, err := lr.r.ReadByte()
		if err != nil {
			if n == 0 {
				return "", err
			}
			break
		}
		if c == '\n' && lr.afterCR {
			lr.afterCR = false
			continue
		}
		if c == '\n' || c == '\r' {
			lr.afterCR = c == '\r'
			break
		}
		lr.afterCR = false
		if n++; n <= lr.max {
			lr.buf = append(lr.buf, c)
		}
	}
	if n > lr.max {
		return "", errLineTooLong
	}
	return string(lr.buf), nil
}
