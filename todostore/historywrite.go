package todostore

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// appendHistory writes buf, the encoded lines of one change, at the end of
// the history open as f, under the session's lock: a torn rest left by a
// crash is cut first, the lines are written whole in one write, and the
// file is synced. added is how many lines buf holds. When the history is
// over its cap it is rewritten without its oldest lines; capped says so.
func (s *Store) appendHistory(f *os.File, t histTail, buf []byte, added int) (capped bool, err error) {
	path := f.Name()
	if t.end < t.Size {
		if err := f.Truncate(t.end); err != nil {
			return false, fmt.Errorf("history %s: cut torn line: %w", path, err)
		}
	}
	if _, err := f.WriteAt(buf, t.end); err != nil {
		return false, fmt.Errorf("history %s: %w", path, err)
	}
	if err := syncFile(f); err != nil {
		return false, fmt.Errorf("history %s: %w", path, err)
	}
	if t.Size == 0 {
		// A new file: its directory entry must be durable too.
		if err := syncDir(path); err != nil {
			return false, err
		}
	}
	count := 0
	if t.n > 0 && t.firstN > 0 {
		count = t.n - t.firstN + 1
	}
	count += added
	if count > MaxHistoryLines || t.end+int64(len(buf)) > MaxHistoryBytes {
		return true, s.capHistory(path)
	}
	return false, nil
}

// capHistory drops the oldest lines of a history over its cap, down to
// about half of both bounds, so the rewrite is rare. What is kept starts
// at a snapshot, so every line kept can be read: the newest one at or
// before the halfway line (a little more than half is kept; the writer
// makes one at least every snapshotEvery lines). Lines are kept as they are,
// not parsed again. A file with a line that is not a change at all
// (garbage, not an object starting with its number) is set aside under a
// new name instead of being replaced.
func (s *Store) capHistory(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("history %s: %w", path, err)
	}
	var ends []int   // offsets just after each newline
	var snaps []bool // whether each line is a snapshot
	bad := false
	for start := 0; start < len(data); {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			break // a torn rest is dropped
		}
		snap, ok := lineHead(data[start:])
		if !ok {
			bad = true
		}
		snaps = append(snaps, snap)
		start += i + 1
		ends = append(ends, start)
	}
	if len(ends) == 0 {
		return nil
	}
	// Line k spans ends[k-1] (or 0) to ends[k]; keep the newest lines
	// while both halves of the bounds allow one more.
	lineStart := func(k int) int {
		if k <= 0 {
			return 0
		}
		return ends[k-1]
	}
	end, n := ends[len(ends)-1], len(ends)
	keep := 1
	for keep < n && keep+1 <= MaxHistoryLines/2 && end-lineStart(n-keep-1) <= MaxHistoryBytes/2 {
		keep++
	}
	first := n - keep
	for first > 0 && !snaps[first] {
		first--
	}
	if first == 0 && !bad {
		return nil // no snapshot to start from: nothing can be dropped
	}
	keepFrom := lineStart(first)
	if bad {
		if err := setAside(path); err != nil {
			return err
		}
	}
	return writeLocked(path, data[keepFrom:end])
}

// setAside renames a file that must not be overwritten to path.bad-N.
func setAside(path string) error {
	for i := 1; ; i++ {
		aside := path + ".bad-" + strconv.Itoa(i)
		if _, err := os.Lstat(aside); err == nil {
			continue
		}
		if err := os.Rename(path, aside); err != nil {
			return fmt.Errorf("set aside %s: %w", path, err)
		}
		return nil
	}
}

// appendLines appends buf, the encoding of lines, to the history h a
// change found, and keeps its new end for the next change (cache.go):
// the history is not read again while this process writes it.
func (s *Store) appendLines(id string, h historyEnd, buf []byte, chain lineChain, lines []HistoryLine) error {
	capped, err := s.appendHistory(h.f, h.tail, buf, len(lines))
	if err != nil {
		return err
	}
	if h.damaged {
		s.damaged.Delete(id)
	}
	if capped {
		return nil
	}
	if info, err := h.f.Stat(); err == nil {
		last := lines[len(lines)-1]
		after := histTail{lineChain: chain, hash: last.hash, firstN: h.tail.firstN, end: h.tail.end + int64(len(buf)), Size: h.tail.end + int64(len(buf))}
		if after.firstN == 0 {
			after.firstN = lines[0].N
		}
		s.cache.setHistTail(id, idOf(info), after)
	}
	return nil
}
