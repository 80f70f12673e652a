package todostore

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Debounce timing of the watcher. A burst of events (an editor's save, a
// tool rewriting the file several times) becomes one check, quiet after the
// last event but never later than maxDelay after the first, so a change
// arrives well within 200 ms even under a continuous stream of writes.
// An unusable file is re-checked once after confirmDelay before it is
// reported, because a writer that truncates and rewrites in place (not
// atomically) shows an empty or half-written file for a moment.
const (
	quietDelay   = 40 * time.Millisecond
	maxDelay     = 120 * time.Millisecond
	confirmDelay = 150 * time.Millisecond
)

// Change is one change to the watched session file made by someone else:
// either the new content, or Err when the file became unusable (corrupt,
// too large, removed). Err is reported once until the file is usable again;
// the caller keeps its last good list meanwhile, and Store.Update refuses to
// write over a bad file.
type Change struct {
	Session *Session
	Err     error
}

// Watcher reports changes other processes make to one session file. It
// watches the store directory, not the file, because atomic saves (ours,
// editors', sync tools') replace the file with a new inode.
type Watcher struct {
	id, path, name, dir string
	events              <-chan fsnotify.Event
	errs                <-chan error
	stop                func() error // closes the fsnotify watcher
	changes             chan Change
	done, finished      chan struct{}

	// mu guards the fields below and every send on changes, so that an
	// own write (AfterWrite) and a delivery cannot interleave.
	mu       sync.Mutex
	closed   bool
	seen     [sha256.Size]byte // content the caller has: last written or delivered
	haveSeen bool
	bad      bool   // an unusable file was reported and has not been fixed since
	ownSeq   uint64 // counts own writes, to discard a read that raced with one
	dirGone  bool   // the loss of the directory was reported
}

// Watch starts watching session id for changes made by other processes
// (and other Store values) and creates the store directory if needed. Own
// writes, those made through s.Update, are recognised by their content and
// never reported: Watch chains itself into s.AfterWrite, so call it before
// s is shared between goroutines. Close the Watcher when done; one per
// process is enough.
func (s *Store) Watch(id string) (*Watcher, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	if err := mkdirStore(s.Dir); err != nil {
		return nil, err
	}
	source := s.watchSource
	if source == nil {
		source = platformSource
	}
	events, errs, stop, err := source(filepath.Clean(s.Dir), s.Path(id))
	if err != nil {
		return nil, err
	}
	return s.watch(id, events, errs, stop), nil
}

// watch starts a Watcher on the given event source; tests pass their own
// channels to inject what the kernel rarely does (queue overflow).
func (s *Store) watch(id string, events <-chan fsnotify.Event, errs <-chan error, stop func() error) *Watcher {
	w := &Watcher{
		id:       id,
		path:     s.Path(id),
		name:     filepath.Base(s.Path(id)),
		dir:      filepath.Clean(s.Dir),
		events:   events,
		errs:     errs,
		stop:     stop,
		changes:  make(chan Change, 1),
		done:     make(chan struct{}),
		finished: make(chan struct{}),
	}
	// What is on disk now is what the caller just loaded: not a change.
	// A file that is already bad was reported by the caller's Load.
	if data, err := readFile(w.path); err == nil {
		if _, err := Decode(data); err == nil {
			w.seen, w.haveSeen = sha256.Sum256(data), true
		} else {
			w.bad = true
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		w.bad = true
	}
	prev := s.AfterWrite
	s.AfterWrite = func(id string, data []byte) {
		w.ownWrite(id, data)
		if prev != nil {
			prev(id, data)
		}
	}
	go w.loop()
	return w
}

// Changes delivers the changes. It holds at most one: when the caller is
// slow, a newer change replaces an unread one, so the last value received
// is always the latest state. It is closed by Close.
func (w *Watcher) Changes() <-chan Change { return w.changes }

// Close stops watching and closes the Changes channel.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	close(w.done)
	err := w.stop()
	<-w.finished
	// No send can follow: every send checks closed under mu.
	close(w.changes)
	if err != nil {
		return fmt.Errorf("close watcher of %s: %w", w.dir, err)
	}
	return nil
}

// ownWrite records content this process wrote (called by Update through
// AfterWrite, under the session lock). Update re-read the file under the
// lock before writing, so its result already includes any change still
// waiting in the channel: that change is dropped instead of being shown
// after, and over, the newer list.
func (w *Watcher) ownWrite(id string, data []byte) {
	if id != w.id {
		return
	}
	h := sha256.Sum256(data)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.seen, w.haveSeen, w.bad = h, true, false
	w.ownSeq++
	select {
	case <-w.changes:
	default:
	}
}

// send delivers c, replacing an unread change. The caller holds mu.
func (w *Watcher) send(c Change) {
	for {
		select {
		case w.changes <- c:
			return
		default:
		}
		select {
		case <-w.changes:
		default:
		}
	}
}

// checkResult says what the loop does after a check.
type checkResult int

const (
	checkDone    checkResult = iota
	checkAgain               // an own write raced with the read: read again
	checkConfirm             // unusable: look again before reporting it
)

// check reads the file and delivers what changed. confirm is true when the
// file was already found unusable once, confirmDelay ago.
func (w *Watcher) check(confirm bool) checkResult {
	w.mu.Lock()
	seq := w.ownSeq
	w.mu.Unlock()

	data, err := readFile(w.path)
	var sess *Session
	var h [sha256.Size]byte
	if err == nil {
		// Most events are our own writes: recognise them by their bytes
		// before paying for a decode of up to 1 MiB.
		h = sha256.Sum256(data)
		w.mu.Lock()
		known := w.haveSeen && h == w.seen && !w.bad && w.ownSeq == seq
		w.mu.Unlock()
		if known {
			return checkDone
		}
		if sess, err = Decode(data); err != nil {
			err = &CorruptError{Path: w.path, Err: err}
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("%s was removed (the list shown is the last one read): %w", w.path, fs.ErrNotExist)
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.closed:
		return checkDone
	case w.ownSeq != seq:
		return checkAgain
	case err != nil && w.bad:
		return checkDone // reported already
	case err != nil && !confirm:
		return checkConfirm
	case err != nil:
		w.bad = true
		w.send(Change{Err: err})
		return checkDone
	}
	if w.haveSeen && h == w.seen && !w.bad {
		return checkDone // our own write, or a rewrite with the same bytes
	}
	w.seen, w.haveSeen, w.bad = h, true, false
	w.send(Change{Session: sess})
	return checkDone
}

// loop drains fsnotify's channels (unbuffered on Linux: a slow reader
// stalls the kernel queue until it overflows) and runs the debounce timer.
func (w *Watcher) loop() {
	defer close(w.finished)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var first time.Time // first event of the pending burst; zero when none
	confirm := false
	schedule := func() {
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		timer.Reset(max(0, min(quietDelay, maxDelay-now.Sub(first))))
		confirm = false
	}
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-w.events:
			if !ok {
				return
			}
			if filepath.Clean(ev.Name) == w.dir && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				w.dirLost()
				continue
			}
			if filepath.Base(ev.Name) == w.name && ev.Has(fsnotify.Create|fsnotify.Write|fsnotify.Remove|fsnotify.Rename) {
				schedule()
			}
		case err, ok := <-w.errs:
			if !ok {
				return
			}
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				w.report(fmt.Errorf("watch %s: %w", w.dir, err))
			}
			schedule() // events may have been lost: look at the file
		case <-timer.C:
			first = time.Time{}
			switch w.check(confirm) {
			case checkAgain:
				schedule()
			case checkConfirm:
				timer.Reset(confirmDelay)
				confirm = true
			}
		}
	}
}

// report delivers a problem of the watch itself, not of the file.
func (w *Watcher) report(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.send(Change{Err: err})
	}
}

// dirLost reports, once, that the watched directory is gone: inotify
// drops the watch with it, so nothing more will arrive.
func (w *Watcher) dirLost() {
	w.mu.Lock()
	gone := w.dirGone
	w.dirGone = true
	w.mu.Unlock()
	if !gone {
		w.report(fmt.Errorf("store directory %s was removed or renamed: live sync stopped (restart todosh)", w.dir))
	}
}
