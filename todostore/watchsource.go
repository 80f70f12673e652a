package todostore

// Where a Watcher's events come from: fsnotify on the store directory,
// or a poller of the session file where watching the directory costs too
// much (macOS). Both give the Watcher fsnotify events.

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// eventSource starts the events about file, in directory dir, and returns
// them with the function that stops them.
type eventSource func(dir, file string) (events <-chan fsnotify.Event, errs <-chan error, stop func() error, err error)

// notifySource is fsnotify on the directory: inotify on Linux,
// ReadDirectoryChangesW on Windows, each one watch for the whole
// directory however many sessions it holds.
func notifySource(dir, file string) (<-chan fsnotify.Event, <-chan error, func() error, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	if err := fsw.Add(dir); err != nil {
		fsw.Close()
		return nil, nil, nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	return fsw.Events, fsw.Errors, fsw.Close, nil
}

// pollInterval is how often pollSource looks at the file: a change made
// elsewhere shows within it, plus the Watcher's debounce.
const pollInterval = 100 * time.Millisecond

// pollSource stats the file (and the directory) every pollInterval and
// sends a Write event when the file's identity (inode, size, time)
// changed, a Remove of the directory when it is gone or replaced. Two
// stats a tick, however many sessions the directory holds: fsnotify's
// kqueue backend, on macOS, opens a descriptor for every file of a
// watched directory (10,000 sessions are 20,000 and more) and reads the
// whole directory again at each change in it.
func pollSource(dir, file string) (<-chan fsnotify.Event, <-chan error, func() error, error) {
	dirInfo, err := os.Stat(dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("watch %s: %w", dir, bareError(err))
	}
	events := make(chan fsnotify.Event)
	done := make(chan struct{})
	var once sync.Once
	stop := func() error { once.Do(func() { close(done) }); return nil }
	identity := func() fileID {
		info, err := os.Lstat(file)
		if err != nil {
			return fileID{}
		}
		return idOf(info)
	}
	go func() {
		tick := time.NewTicker(pollInterval)
		defer tick.Stop()
		last := identity()
		send := func(ev fsnotify.Event) bool {
			select {
			case events <- ev:
				return true
			case <-done:
				return false
			}
		}
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if now, err := os.Stat(dir); err != nil || !os.SameFile(now, dirInfo) {
				send(fsnotify.Event{Name: dir, Op: fsnotify.Remove})
				return
			}
			if id := identity(); id != last {
				last = id
				if !send(fsnotify.Event{Name: file, Op: fsnotify.Write}) {
					return
				}
			}
		}
	}()
	return events, make(chan error), stop, nil
}
