package files

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/todosh/todosh/board"
)

// indexName is a local cache of what `ready` needs of each item (status,
// lease, blockers, created, text), keyed by the item file's size, mtime
// and inode: ready over a large board is a readdir and a stat per file,
// not a read and a decode (docs/performance.md). Never committed; a
// missing, stale or unreadable index only costs the reads.
const (
	indexName   = ".index"
	indexHeader = "todosh-board-index 2"
)

type indexEntry struct {
	size, mtime int64
	ino         uint64
	it          board.Item // ID, Text, Status, Claim.Until, Created, BlockedBy
}

func (e *indexEntry) line(name string) string {
	var until int64
	if e.it.Claim != nil {
		until = e.it.Claim.Until.UnixNano()
	}
	var lost []string
	for _, c := range e.it.Lost {
		lost = append(lost, c.Session+"\x00"+c.Host)
	}
	return fmt.Sprintf("%s\t%d\t%d\t%d\t%s\t%d\t%d\t%s\t%s\t%s\n", name, e.size, e.mtime, e.ino, e.it.Status,
		until, e.it.Created.UnixNano(), strings.Join(e.it.BlockedBy, ","), strconv.Quote(strings.Join(lost, "\x01")), strconv.Quote(e.it.Text))
}

func parseIndexLine(l string) (string, indexEntry, bool) {
	f := strings.SplitN(l, "\t", 10)
	if len(f) != 10 {
		return "", indexEntry{}, false
	}
	var e indexEntry
	var err [7]error
	var lost string
	var until, created int64
	e.size, err[0] = strconv.ParseInt(f[1], 10, 64)
	e.mtime, err[1] = strconv.ParseInt(f[2], 10, 64)
	e.ino, err[2] = strconv.ParseUint(f[3], 10, 64)
	until, err[3] = strconv.ParseInt(f[5], 10, 64)
	created, err[4] = strconv.ParseInt(f[6], 10, 64)
	lost, err[5] = strconv.Unquote(f[8])
	e.it.Text, err[6] = strconv.Unquote(f[9])
	for _, x := range err {
		if x != nil {
			return "", e, false
		}
	}
	e.it.ID = strings.TrimSuffix(f[0], ".json")
	e.it.Status = board.Status(f[4])
	e.it.Created = time.Unix(0, created)
	if until != 0 {
		e.it.Claim = &board.Claim{Until: time.Unix(0, until)}
	}
	if f[7] != "" {
		e.it.BlockedBy = strings.Split(f[7], ",")
	}
	if lost != "" {
		for _, w := range strings.Split(lost, "\x01") {
			session, host, _ := strings.Cut(w, "\x00")
			e.it.Lost = append(e.it.Lost, board.Claim{Who: board.Who{Session: session, Host: host}})
		}
	}
	return f[0], e, true
}

func (b *Board) readIndex() map[string]indexEntry {
	data, err := os.ReadFile(filepath.Join(b.dir, indexName))
	if err != nil || !bytes.HasPrefix(data, []byte(indexHeader+"\n")) {
		return nil
	}
	idx := map[string]indexEntry{}
	sc := bufio.NewScanner(bytes.NewReader(data[len(indexHeader)+1:]))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		if name, e, ok := parseIndexLine(sc.Text()); ok {
			idx[name] = e
		}
	}
	return idx
}

// Ready returns the ready items in order, with their id, text, status,
// lease, blockers and creation time, through the index; broken item files
// are named in problems and skipped.
func (b *Board) Ready(_ context.Context) ([]board.Item, []error, error) {
	items, problems, err := b.scan()
	if err != nil {
		return nil, problems, err
	}
	return board.ReadyOf(items, b.now()), problems, nil
}

// LostBy returns the ids of the items that record a claim of who lost in
// a git merge, through the index.
func (b *Board) LostBy(who board.Who) ([]string, error) {
	items, _, err := b.scan()
	var ids []string
	for _, it := range items {
		for _, c := range it.Lost {
			if c.Same(who) {
				ids = append(ids, it.ID)
				break
			}
		}
	}
	return ids, err
}

// scan returns every item's summary (id, text, status, lease, blockers,
// creation time, the claimants of lost claims) from the index, reading
// only the item files changed since it was written, and writes it again
// when any was.
func (b *Board) scan() ([]board.Item, []error, error) {
	d, err := os.Open(b.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read the board %s: %w", b.dir, err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("read the board %s: %w", b.dir, err)
	}
	ds, err := openDirStat(b.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read the board %s: %w", b.dir, err)
	}
	defer ds.close()
	idx := b.readIndex()
	items := make([]board.Item, 0, len(names))
	kept := make([]string, 0, len(names))
	entries := make([]indexEntry, 0, len(names))
	var problems []error
	stale := false
	for _, name := range names {
		id, ok := itemID(name)
		if !ok {
			continue
		}
		size, mtime, ino, err := ds.stat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", filepath.Join(b.dir, name), err))
			continue
		}
		e, ok := idx[name]
		if !ok || e.size != size || e.mtime != mtime || e.ino != ino {
			stale = true
			it, err := b.read(id)
			if err != nil {
				problems = append(problems, err)
				continue
			}
			e = indexEntry{size: size, mtime: mtime, ino: ino, it: it}
		}
		items = append(items, e.it)
		kept, entries = append(kept, name), append(entries, e)
	}
	if stale || len(idx) != len(items) {
		b.writeIndex(kept, entries)
	}
	return items, problems, nil
}

// writeIndex replaces the index: atomically, never fsynced (a cache;
// losing it costs only reads).
func (b *Board) writeIndex(names []string, entries []indexEntry) {
	var buf strings.Builder
	buf.WriteString(indexHeader + "\n")
	for i := range entries {
		buf.WriteString(entries[i].line(names[i]))
	}
	f, err := os.CreateTemp(b.dir, tmpPrefix+"*")
	if err != nil {
		return
	}
	_, err = f.WriteString(buf.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(b.dir, indexName))
	}
	if err != nil {
		os.Remove(f.Name())
	}
}
