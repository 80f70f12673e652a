package todostore

// The parsed work log kept while its file is unchanged or only grew, so
// reading receipts again is one stat, and after an append it is one read
// of the lines appended (ARCHITECTURE.md §3). Every plan sync of a turn,
// every list printed and every hook run reads them; a log holds up to
// 8 MiB, about 50,000 tool calls.

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"sync"

	"github.com/todosh/todosh/todolist"
)

// maxWorkCached and maxWorkCachedBytes bound the work logs kept parsed
// (and files kept open): a shell, an MCP server's session or a hook run
// reads one; the board's follower, reading several sessions' in turn,
// reads them whole as before. Parsed, a log takes about 2.6 times its
// bytes (10,000 tool calls: 1.2 MB of file, 3.1 MB of lines), so the
// logs kept, two full ones at most, take about 45 MB; the log read last
// is always kept.
const (
	maxWorkCached      = 4
	maxWorkCachedBytes = 2 * MaxWorkBytes
)

// workTail is how many of the bytes before the end of the last line read
// an entry keeps, to tell a log appended to from one rewritten in place.
const workTail = 256

// workEntry is one session's work log as last read.
type workEntry struct {
	fid fileID
	pin *os.File // the file read, kept open so its inode number stays its own
	p   workParser
	// tail is the file's bytes just before p.off.
	tail []byte
	sum  todolist.Summary
	used uint64
}

// receipts is the entry as a read returns it: the lines capped at their
// length, so a caller's append copies them and the entry's later appends
// are never seen by an earlier caller.
func (e *workEntry) receipts() Receipts {
	lines := e.p.log.Lines
	return Receipts{Log: WorkLog{Lines: lines[:len(lines):len(lines)], Bad: e.p.log.Bad}, Sum: e.sum}
}

// workCache maps session ids to their work logs as last read. Its zero
// value is empty and ready. One lock for all: a read that parses holds it,
// and reads of other sessions wait (one process reads one or two).
type workCache struct {
	mu    sync.Mutex
	m     map[string]*workEntry
	clock uint64
	// parsed counts the bytes parsed, for tests that check a read parses
	// only what was appended.
	parsed int64
}

// read returns session id's work log and its sum: from the cache while
// the file is unchanged (its identity: inode, size, mtime), read on from
// the last line read when the same file only grew and the bytes before
// that point are still there, else read whole. Every read checks the
// file's owner and mode and refuses a symlink, cached or not.
func (c *workCache) read(s *Store, id string) (Receipts, error) {
	path := s.WorkPath(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	info, err := os.Lstat(path)
	if isNotExist(err) {
		c.drop(id)
		return Receipts{Sum: WorkLog{}.Summarize()}, nil
	}
	if e := c.m[id]; e != nil && err == nil && info.Mode().IsRegular() && checkOwnFile(info) == nil {
		c.clock++
		e.used = c.clock
		fid, off := idOf(info), e.p.off
		if fid == e.fid || e.readOn(fid) {
			c.parsed += e.p.off - off
			c.trim(id)
			return e.receipts(), nil
		}
	}
	c.drop(id)
	e, err := readWorkFile(path)
	if isNotExist(err) {
		return Receipts{Sum: WorkLog{}.Summarize()}, nil
	}
	if err != nil {
		return Receipts{}, err
	}
	c.parsed += e.p.off
	c.put(id, e)
	return e.receipts(), nil
}

// readWorkFile reads and parses the work log at path in full, for the
// cache: the file is kept open. No file is fs.ErrNotExist. At most
// 2*MaxWorkBytes are read: a log over its cap is one whose rewrite a
// crash stopped, and the next append cuts it.
func readWorkFile(path string) (*workEntry, error) {
	f, err := openWork(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("work log %s: %w", path, err)
	}
	data := make([]byte, min(info.Size(), 2*MaxWorkBytes))
	n, err := f.ReadAt(data, 0)
	if err != nil && err != io.EOF { // io.EOF: cut since the stat, which the next read sees
		f.Close()
		return nil, fmt.Errorf("work log %s: %w", path, err)
	}
	e := &workEntry{fid: idOf(info), pin: f}
	e.p.feed(data[:n])
	e.sum = e.p.log.Summarize()
	e.tail = keepTail(nil, data[:e.p.off])
	return e, nil
}

// readOn brings e up to the file now fid, when it is e's file grown by
// appends: the lines after e.p.off are parsed and added to e.sum. It
// reports false, e unchanged, for anything else (another file, a file cut
// or changed in place, a read that fails): the caller reads it whole.
func (e *workEntry) readOn(fid fileID) bool {
	if fid.ino == 0 || fid.dev != e.fid.dev || fid.ino != e.fid.ino || fid.Size <= e.fid.Size {
		return false // an inode unknown (Windows), another file, or one not grown
	}
	from := e.p.off - int64(len(e.tail))
	end := min(fid.Size, 2*MaxWorkBytes)
	if end <= e.p.off {
		e.fid = fid // over the read limit: nothing more is read
		return true
	}
	data := make([]byte, end-from)
	n, err := e.pin.ReadAt(data, from)
	if err != nil && err != io.EOF || n < len(e.tail) || !bytes.Equal(data[:len(e.tail)], e.tail) {
		return false
	}
	data = data[len(e.tail):n]
	p := e.p
	before := len(p.log.Lines)
	off := p.off
	p.feed(data)
	if len(p.log.Lines) > before || p.log.Bad != e.p.log.Bad {
		sum := e.sum
		sum.Items = maps.Clone(sum.Items) // the old map is a caller's
		for _, l := range chargeFrom(p.log.Lines, before) {
			addWork(&sum, l)
		}
		sum.Bad = p.log.Bad
		e.sum = sum
	}
	e.tail = keepTail(e.tail, data[:p.off-off])
	e.p, e.fid = p, fid
	return true
}

// keepTail is the last workTail bytes of old followed by read.
func keepTail(old, read []byte) []byte {
	if len(read) >= workTail {
		return bytes.Clone(read[len(read)-workTail:])
	}
	both := append(bytes.Clone(old), read...)
	return both[max(0, len(both)-workTail):]
}

// put caches e for id.
func (c *workCache) put(id string, e *workEntry) {
	if c.m == nil {
		c.m = make(map[string]*workEntry)
	}
	c.clock++
	e.used = c.clock
	c.m[id] = e
	c.trim(id)
}

// trim drops the least recently used entries, never keep's, while the
// cache holds more than its bounds.
func (c *workCache) trim(keep string) {
	for {
		var total int64
		lru := ""
		for k, v := range c.m {
			total += v.p.off
			if k != keep && (lru == "" || v.used < c.m[lru].used) {
				lru = k
			}
		}
		if lru == "" || len(c.m) <= maxWorkCached && total <= maxWorkCachedBytes {
			return
		}
		c.drop(lru)
	}
}

// forget drops id's entry, closing its file: the caller removed or
// replaced the log.
func (c *workCache) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(id)
}

// drop forgets id, whose file is gone, changed or unusable. The caller
// holds c.mu.
func (c *workCache) drop(id string) {
	if e := c.m[id]; e != nil {
		e.pin.Close()
		delete(c.m, id)
	}
}
