package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// MaxLineBytes is the longest line the bot protocol accepts, newline
// excluded. Commands are single words; the cap keeps a client from making
// the server buffer an endless line.
const MaxLineBytes = 64

// errLineTooLong reports a line over MaxLineBytes. The line has been
// consumed, so reading can go on.
var errLineTooLong = errors.New("line too long")

// lineReader reads newline-terminated lines of at most max bytes.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 256), max: max}
}

// ReadLine returns the next line without its "\n" or "\r\n". A line longer
// than max is discarded up to its newline and reported as errLineTooLong.
// A last line without a newline is returned before io.EOF.
func (lr *lineReader) ReadLine() (string, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > lr.max+2 { // room for "\r\n"
				tooLong = true
				line = nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && (len(line) == 0 && !tooLong || !errors.Is(err, io.EOF)):
			return "", err
		}
		if tooLong {
			return "", errLineTooLong
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > lr.max {
			return "", errLineTooLong
		}
		return string(line), nil
	}
}
