// Package files is the board engine kept in the repository: one JSON file
// per item under .todosh/board/, changed under one flock by atomic durable
// writes, shared with other machines through git and its merge driver
// (merge.go). See docs/board.md.
package files

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/todosh/todosh/board"
)

// Dir is the board's directory relative to the checkout's root.
const Dir = ".todosh/board"

// lockName and the temp files' prefix are local to a checkout; the
// board's .gitignore keeps them out of git.
const (
	lockName  = ".lock"
	tmpPrefix = ".tmp-"
	gitignore = lockName + "\n" + indexName + "\n" + tmpPrefix + "*\n"
	// maxItemFile bounds an item file; a larger one is broken.
	maxItemFile = 1 << 20
)

// ErrNoBoard is returned by Find when the checkout has no board.
var ErrNoBoard = errors.New("no board in this checkout")

// Board is a board in a directory.
type Board struct {
	dir string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Open returns the board in dir (a .todosh/board directory).
func Open(dir string) *Board { return &Board{dir: dir} }

// Find returns the board directory of the checkout holding cwd: the first
// .todosh/board walking up, stopping at the checkout's root (the first
// directory with a .git), so a worktree uses its own board.
func Find(cwd string) (string, error) {
	for d := cwd; ; {
		if fi, err := os.Stat(filepath.Join(d, Dir)); err == nil && fi.IsDir() {
			return filepath.Join(d, Dir), nil
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return "", fmt.Errorf("%w %s (run todosh board init there)", ErrNoBoard, d)
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("%w (%s is in no git checkout: run todosh board init)", ErrNoBoard, cwd)
		}
		d = up
	}
}

// Root returns the checkout's root for cwd: the first directory walking
// up that has a .git, or cwd itself outside git; git reports whether it
// is a checkout.
func Root(cwd string) (root string, git bool) {
	for d := cwd; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		up := filepath.Dir(d)
		if up == d {
			return cwd, false
		}
		d = up
	}
}

// Init makes the board directory under root, with the .gitignore for its
// lock and temp files; created reports whether it was new.
func Init(root string) (dir string, created bool, err error) {
	dir = filepath.Join(root, Dir)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir, false, ensureFile(filepath.Join(dir, ".gitignore"), gitignore)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return dir, false, fmt.Errorf("make %s: %w", dir, err)
	}
	return dir, true, ensureFile(filepath.Join(dir, ".gitignore"), gitignore)
}

func ensureFile(path, content string) error {
	if b, err := os.ReadFile(path); err == nil && string(b) == content {
		return nil
	}
	return writeDurable(path, []byte(content))
}

// Where is the board's directory.
func (b *Board) Where() string { return b.dir }

// Close does nothing: a files board holds nothing open between calls.
func (b *Board) Close() error { return nil }

func (b *Board) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

func (b *Board) path(id string) string { return filepath.Join(b.dir, id+".json") }

// itemID is the id of the item file name, which is ID.json; ok is false
// for any other file of the directory (the lock, the index, temp files,
// .gitignore).
func itemID(name string) (id string, ok bool) {
	if strings.HasPrefix(name, ".") {
		return "", false
	}
	return strings.CutSuffix(name, ".json")
}

// Encode is an item file's bytes: indented JSON and a newline, the same
// for the same item on every machine.
func Encode(it *board.Item) []byte {
	data, err := json.MarshalIndent(it, "", "  ")
	if err != nil {
		panic(err) // an Item always marshals
	}
	return append(data, '\n')
}

// Decode reads an item file's bytes strictly: one JSON object, a valid
// item.
func Decode(data []byte) (board.Item, error) {
	var it board.Item
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&it); err != nil {
		return it, fmt.Errorf("not an item: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return it, errors.New("not an item: data after the JSON object")
	}
	return it, board.Check(&it)
}

func (b *Board) read(id string) (board.Item, error) {
	if err := board.ValidID(id); err != nil {
		return board.Item{}, err
	}
	data, err := os.ReadFile(b.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return board.Item{}, fmt.Errorf("%s: %w", id, board.ErrNotFound)
	}
	if err != nil {
		return board.Item{}, err
	}
	it, err := Decode(data)
	if err != nil {
		return it, fmt.Errorf("%s: %w (fix or remove the file)", b.path(id), err)
	}
	if it.ID != id {
		return it, fmt.Errorf("%s: holds item %q (fix or remove the file)", b.path(id), it.ID)
	}
	return it, nil
}

// Get returns one item.
func (b *Board) Get(_ context.Context, id string) (board.Item, error) { return b.read(id) }

// List reads every item file; a broken one is named in problems and
// skipped.
func (b *Board) List(_ context.Context) ([]board.Item, []error, error) {
	ents, err := os.ReadDir(b.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read the board %s: %w", b.dir, err)
	}
	ids := make([]string, 0, len(ents))
	for _, e := range ents {
		if id, ok := itemID(e.Name()); ok {
			ids = append(ids, id)
		}
	}
	items := make([]board.Item, len(ids))
	errs := make([]error, len(ids))
	// Reading is I/O and decoding CPU: a few readers at once.
	var wg sync.WaitGroup
	const readers = 4
	for r := range readers {
		wg.Go(func() {
			for i := r; i < len(ids); i += readers {
				items[i], errs[i] = b.read(ids[i])
			}
		})
	}
	wg.Wait()
	var problems []error
	out := items[:0]
	for i := range items {
		if errs[i] != nil {
			problems = append(problems, errs[i])
			continue
		}
		out = append(out, items[i])
	}
	board.Sort(out)
	return out, problems, nil
}

// lookup reads blockers one file at a time (a claim needs a few, not the
// whole board).
func (b *Board) lookup(id string) (board.Item, bool) {
	it, err := b.read(id)
	return it, err == nil
}

// Add writes a new item under the lock.
func (b *Board) Add(_ context.Context, it board.Item) error {
	if err := board.Check(&it); err != nil {
		return err
	}
	unlock, err := b.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if b.has(it.ID) {
		return fmt.Errorf("item %s is already on the board", it.ID)
	}
	if err := board.CheckBlockedBy(it.ID, it.BlockedBy, b.lookup); err != nil {
		return err
	}
	return b.write(&it)
}

// Claim claims item id under the lock: read it, check, write it.
func (b *Board) Claim(_ context.Context, id string, who board.Who, lease time.Duration) (board.Item, error) {
	unlock, err := b.lockToClaim(lease)
	if err != nil {
		return board.Item{}, err
	}
	defer unlock()
	it, err := b.read(id)
	if err != nil {
		return it, err
	}
	now := b.now()
	if err := board.Claimable(&it, who, now, b.lookup); err != nil {
		return it, err
	}
	return it, b.claim(&it, who, now, lease)
}

// lockToClaim checks a claim's lease, then takes the lock.
func (b *Board) lockToClaim(lease time.Duration) (unlock func(), err error) {
	if err := board.CheckLease(lease); err != nil {
		return nil, err
	}
	return b.lock()
}

func (b *Board) claim(it *board.Item, who board.Who, now time.Time, lease time.Duration) error {
	it.Status = board.Claimed
	it.Claim = &board.Claim{Who: who, At: now, Until: now.Add(lease)}
	it.Updated = now
	return b.write(it)
}

// ClaimNext claims the first ready item under the lock.
func (b *Board) ClaimNext(ctx context.Context, who board.Who, lease time.Duration) (board.Item, error) {
	unlock, err := b.lockToClaim(lease)
	if err != nil {
		return board.Item{}, err
	}
	defer unlock()
	// The index names the candidates; each is read again under the lock
	// before it is claimed.
	ready, _, err := b.Ready(ctx)
	if err != nil {
		return board.Item{}, err
	}
	now := b.now()
	for _, r := range ready {
		it, err := b.read(r.ID)
		if err != nil || board.Claimable(&it, who, now, b.lookup) != nil {
			continue
		}
		return it, b.claim(&it, who, now, lease)
	}
	return board.Item{}, board.ErrNoneReady
}

// Update applies ch to item id under the lock; a change that changes
// nothing writes nothing.
func (b *Board) Update(_ context.Context, id string, ch board.Change) (board.Item, bool, error) {
	unlock, err := b.lock()
	if err != nil {
		return board.Item{}, false, err
	}
	defer unlock()
	before, err := b.read(id)
	if err != nil {
		return before, false, err
	}
	it := before.Clone()
	now := b.now()
	if err := ch(&it, now, b.lookup); err != nil {
		return before, false, err
	}
	if err := board.Check(&it); err != nil {
		return before, false, err
	}
	if bytes.Equal(Encode(&before), Encode(&it)) {
		return it, false, nil
	}
	it.Updated = now
	return it, true, b.write(&it)
}

// Import adds the items whose ids the board does not have.
func (b *Board) Import(_ context.Context, items []board.Item) (int, error) {
	unlock, err := b.lock()
	if err != nil {
		return 0, err
	}
	defer unlock()
	n := 0
	for i := range items {
		if err := board.Check(&items[i]); err != nil {
			return n, err
		}
		if b.has(items[i].ID) {
			continue
		}
		if err := b.write(&items[i]); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// has reports whether the board has a file for item id (Add and Import
// never write over one).
func (b *Board) has(id string) bool {
	_, err := os.Lstat(b.path(id))
	return err == nil
}

func (b *Board) write(it *board.Item) error {
	return writeDurable(b.path(it.ID), Encode(it))
}

// writeDurable writes a file atomically and durably: a temp file in the
// same directory, fsync, rename, fsync of the directory (syncDir).
func writeDurable(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tmpPrefix+"*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("write %s: sync the directory: %w", path, err)
	}
	return nil
}

// Watch calls changed whenever an item file is written or removed, by
// this process or another, until ctx ends (fsnotify on the directory;
// bursts within 50 ms are one call).
func (b *Board) Watch(ctx context.Context, changed func()) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", b.dir, err)
	}
	defer w.Close()
	if err := w.Add(b.dir); err != nil {
		return fmt.Errorf("watch %s: %w", b.dir, err)
	}
	var timer <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if _, item := itemID(filepath.Base(ev.Name)); item && timer == nil {
				timer = time.After(50 * time.Millisecond)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			return fmt.Errorf("watch %s: %w", b.dir, err)
		case <-timer:
			timer = nil
			changed()
		}
	}
}
