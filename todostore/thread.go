package todostore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ThreadPath is the transcript of the editor thread (`todosh acp`) of
// session id: what the editor was shown, one JSON value per line, which
// a reopened thread replays. The store keeps the lines as they are; what
// they mean is acpserve's.
func (s *Store) ThreadPath(id string) string {
	return filepath.Join(s.Dir, "thread-"+id+".jsonl")
}

// Limits of a thread's transcript: a line over MaxThreadLine is not kept
// (a tool call carrying a whole file), and a file over MaxThreadFile is
// rewritten with its newest lines, about half of it, so it never grows
// without end and always loads.
const (
	MaxThreadLine = 256 << 10
	MaxThreadFile = 4 << 20
)

// AppendThread appends lines (each one JSON value without a newline) to
// session id's transcript, creating it private. Lines over MaxThreadLine
// or not JSON are skipped; kept says how many were written. It takes no
// lock: each line is one write of an O_APPEND file, and one `todosh acp`
// serves a thread. A file over MaxThreadFile afterwards is cut to its
// newest half, atomically.
func (s *Store) AppendThread(id string, lines [][]byte) (kept int, err error) {
	if err := ValidSessionID(id); err != nil {
		return 0, err
	}
	var buf bytes.Buffer
	for _, l := range lines {
		if len(l) == 0 || len(l) > MaxThreadLine || !json.Valid(l) || bytes.IndexByte(l, '\n') >= 0 {
			continue
		}
		buf.Write(l)
		buf.WriteByte('\n')
		kept++
	}
	if kept == 0 {
		return 0, nil
	}
	if err := s.ensureDirs(); err != nil {
		return 0, err
	}
	path := s.ThreadPath(id)
	f, err := openThread(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
	if err != nil {
		return 0, err
	}
	_, err = f.Write(buf.Bytes())
	var size int64
	if info, serr := f.Stat(); serr == nil {
		size = info.Size()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("thread %s: %w", path, bareError(err))
	}
	if size > MaxThreadFile {
		if err := s.trimThread(path); err != nil {
			return kept, err
		}
	}
	return kept, nil
}

// trimThread rewrites a transcript with its newest lines that fit in half
// of MaxThreadFile.
func (s *Store) trimThread(path string) error {
	lines, _, err := readThreadFile(path)
	if err != nil {
		return err
	}
	total, from := 0, len(lines)
	for from > 0 && total+len(lines[from-1])+1 <= MaxThreadFile/2 {
		from--
		total += len(lines[from]) + 1
	}
	var buf bytes.Buffer
	for _, l := range lines[from:] {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	return WriteFileAtomic(path, buf.Bytes())
}

// ReadThread returns session id's transcript, line by line; a missing
// transcript is none. A torn last line (a crash mid-write) and lines that
// are not JSON are skipped and counted.
func (s *Store) ReadThread(id string) (lines [][]byte, skipped int, err error) {
	if err := ValidSessionID(id); err != nil {
		return nil, 0, err
	}
	lines, skipped, err = readThreadFile(s.ThreadPath(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	return lines, skipped, err
}

func readThreadFile(path string) (lines [][]byte, skipped int, err error) {
	f, err := openThread(path, os.O_RDONLY)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("thread %s: %w", path, bareError(err))
	}
	data := make([]byte, info.Size())
	n, err := f.ReadAt(data, 0)
	if err != nil && n < len(data) {
		data = data[:n]
	}
	lines, skipped = parseThread(data)
	return lines, skipped, nil
}

// parseThread splits a transcript into its JSON lines; a torn last line
// (no newline) and lines that are not JSON are counted in skipped.
func parseThread(data []byte) (lines [][]byte, skipped int) {
	for len(data) > 0 {
		line, rest, complete := bytes.Cut(data, []byte("\n"))
		data = rest
		switch {
		case len(line) == 0:
		case !complete || !json.Valid(line):
			skipped++
		default:
			lines = append(lines, line)
		}
	}
	return lines, skipped
}

// openThread opens a transcript as openHistory opens a history: never
// through a symlink, only a regular file of the user's own.
func openThread(path string, flag int) (*os.File, error) {
	return openOwnFile(path, flag, "thread", "a thread file")
}
