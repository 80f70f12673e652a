package todostore

// The decoded session kept while its file is unchanged, so an operation
// reads and decodes a session file once (ARCHITECTURE.md §3).

import (
	"os"
	"sync"
	"sync/atomic"
)

// fileID tells one version of a file from another without reading it:
// the inode, its size and its modification time. The cache keeps the file
// it read open, so its inode cannot be freed and its number given to
// another file while the entry lives; a file changed in place (an editor
// writing over it) changes its size or time.
type fileID struct {
	dev, ino uint64
	Size     int64
	mtime    int64
}

func idOf(info os.FileInfo) fileID {
	id := fileID{Size: info.Size(), mtime: info.ModTime().UnixNano()}
	id.dev, id.ino, _, _ = statOf(info)
	return id
}

// state is a session as read: the decoded session (shared with the cache:
// never changed, cloned by whoever changes it), whether its file exists,
// the file's identity and the hash of its list.
type state struct {
	sess    *Session
	present bool
	fid     fileID
	hash    uint64
	// items are the encodings of sess.Todos as in the file this process
	// wrote (nil when it read the file), so the next change encodes only
	// the items it changed; hashAt are the list hash's states at each item
	// (listHashes), so it hashes only those too.
	items  [][]byte
	hashAt []uint64
}

// cacheEntry is one cached session and what this process knows of its
// history's end.
type cacheEntry struct {
	state
	pin *os.File // the file read, kept open so its inode number stays its own
	// hist is the history file's identity after this process's last
	// append, and tail what it then ended with.
	hist fileID
	tail histTail
	used uint64
}

// decodes counts the session files readSession decoded, for tests that
// check an operation decodes once.
var decodes atomic.Int64

// maxCached bounds the sessions kept decoded (and files kept open): a shell
// or MCP server works on one or two.
const maxCached = 8

// sessionCache maps session ids to their last read or written state. Its
// zero value is empty and ready.
type sessionCache struct {
	mu    sync.Mutex
	m     map[string]*cacheEntry
	clock uint64
}

// get returns the cached state of id when its file is still fid.
func (c *sessionCache) get(id string, fid fileID) (state, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[id]
	if e == nil || e.fid != fid {
		return state{}, false
	}
	c.clock++
	e.used = c.clock
	return e.state, true
}

// put caches st for id, pinned by f (which the cache now owns and closes).
// The history tail known for the entry it replaces is kept when the
// history is unchanged; keepTail says the caller will set it anew.
func (c *sessionCache) put(id string, st state, f *os.File) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*cacheEntry)
	}
	c.clock++
	e := &cacheEntry{state: st, pin: f, used: c.clock}
	if old := c.m[id]; old != nil {
		e.hist, e.tail = old.hist, old.tail
		old.pin.Close()
	} else if len(c.m) >= maxCached {
		var lru string
		for k, v := range c.m {
			if lru == "" || v.used < c.m[lru].used {
				lru = k
			}
		}
		c.m[lru].pin.Close()
		delete(c.m, lru)
	}
	c.m[id] = e
}

// drop forgets id, whose file is gone or unusable.
func (c *sessionCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[id]; e != nil {
		e.pin.Close()
		delete(c.m, id)
	}
}

// histTail returns the history end this process left for id when the
// history file is still hid.
func (c *sessionCache) histTail(id string, hid fileID) (histTail, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[id]; e != nil && e.hist == hid && hid != (fileID{}) {
		return e.tail, true
	}
	return histTail{}, false
}

// setHistTail records the history end after an append.
func (c *sessionCache) setHistTail(id string, hid fileID, t histTail) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[id]; e != nil {
		e.hist, e.tail = hid, t
	}
}

// readSession returns session id as it is on disk, from the cache when its
// file is unchanged: a stat instead of a read and a decode. A missing file
// is a new session, not present. The session returned is shared: clone it
// before changing it.
func (s *Store) readSession(id string) (state, error) {
	path := s.Path(id)
	if info, err := os.Lstat(path); err == nil && info.Mode().IsRegular() {
		// A chmod changes neither size nor mtime: the owner and mode are
		// checked at every read, cached or not (checkOwnFile).
		if err := checkOwnFile(info); err != nil {
			s.cache.drop(id)
			return state{}, &CorruptError{Path: path, Err: err}
		}
		if st, ok := s.cache.get(id, idOf(info)); ok {
			return st, nil
		}
	}
	data, f, info, err := readOpen(path, true)
	if isNotExist(err) {
		s.cache.drop(id)
		return state{sess: s.newSession(id)}, nil
	}
	if err != nil {
		s.cache.drop(id)
		return state{}, err
	}
	decodes.Add(1)
	sess, err := Decode(data)
	if err != nil {
		f.Close()
		s.cache.drop(id)
		return state{}, &CorruptError{Path: path, Err: err}
	}
	hash, hashAt := listHashes(sess.Todos, nil, nil)
	st := state{sess: sess, present: true, fid: idOf(info), hash: hash, hashAt: hashAt}
	s.cache.put(id, st, f)
	return st, nil
}

// dirMark is what a write checks of a store directory it has made private
// already: its inode, mode and owner, from one lstat.
type dirMark struct {
	ino  uint64
	Mode os.FileMode
	uid  uint32
}

func markOf(path string) (dirMark, bool) {
	info, err := os.Lstat(path)
	if err != nil || info.Mode()&os.ModeSymlink != 0 {
		return dirMark{}, false // a symlinked store is checked in full at every write: its target may change
	}
	_, ino, uid, ok := statOf(info)
	if !ok {
		return dirMark{}, false
	}
	return dirMark{ino: ino, Mode: info.Mode(), uid: uid}, true
}

// dirsChecked remembers the store's directories as the last full check
// left them.
type dirsChecked struct {
	mu         sync.Mutex
	dir, locks dirMark
	OK         bool
}

// ensureDirs makes the store's directory and its lock directory exist and
// private (mkdirStore). After the first full check a write lstats the two
// and checks again in full only when either is not the directory it was,
// or its mode or owner changed: two system calls instead of about ten.
func (s *Store) ensureDirs() error {
	d, l := s.Dir, s.lockDir()
	s.dirs.mu.Lock()
	defer s.dirs.mu.Unlock()
	if s.dirs.OK {
		dm, ok1 := markOf(d)
		lm, ok2 := markOf(l)
		if ok1 && ok2 && dm == s.dirs.dir && lm == s.dirs.locks {
			return nil
		}
	}
	s.dirs.OK = false
	if err := mkdirStore(d); err != nil {
		return err
	}
	if err := mkdirStore(l); err != nil {
		return err
	}
	dm, ok1 := markOf(d)
	lm, ok2 := markOf(l)
	s.dirs.dir, s.dirs.locks, s.dirs.OK = dm, lm, ok1 && ok2
	return nil
}
