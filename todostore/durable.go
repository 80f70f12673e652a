package todostore

// Durable writes: atomic replace, fsync of files and directories, and their counters.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
)

// WriteFileAtomic replaces path with data so that a reader, or a crash at
// any moment, sees either the old file or the new one: temp file in the
// same directory, fsync, rename, fsync the directory. The file keeps its
// mode without the group and other bits, or gets 0600 when it is new.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := createTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, bareError(err))
	}
	_, err = commitTemp(tmp, path, [][]byte{data}, nil, false)
	return countWrite(err)
}

// writeLocked is WriteFileAtomic for a writer that holds the session's
// lock: no other writer can be using the fixed temp name, so the one a
// killed writer left behind is removed instead of piling up. O_EXCL and
// O_NOFOLLOW after the remove mean a planted symlink is never followed;
// anything else in the way (a directory of that name) is reported.
func writeLocked(path string, data []byte) error {
	_, err := writeLockedID(path, data)
	return err
}

// writeLockedID is writeLocked that also returns the identity of the file
// it wrote, for the cache (cache.go).
func writeLockedID(path string, data []byte) (fileID, error) {
	f, id, err := writeLockedFile(path, [][]byte{data}, false)
	if f != nil {
		f.Close()
	}
	return id, err
}

// writeLockedPieces is writeLockedID for a file given in pieces (encoding),
// which returns the file written still open, for the cache to pin: the
// same inode as the path's, without opening it again.
func writeLockedPieces(path string, pieces [][]byte) (*os.File, fileID, error) {
	return writeLockedFile(path, pieces, true)
}

func writeLockedFile(path string, pieces [][]byte, keep bool) (*os.File, fileID, error) {
	var id fileID
	name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	const flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL | oNoFollow
	// Nearly always there is no temp file: it is created at once, and
	// what is in the way is looked at only when the create finds it.
	tmp, err := openFile(name, flags, FileMode)
	if errors.Is(err, fs.ErrExist) {
		if info, err := os.Lstat(name); err == nil && (info.IsDir() || !info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0) {
			return nil, id, fmt.Errorf("write %s: %s is in the way of its temp file (%s, not todosh's): move it aside", path, name, fileKind(info.Mode()))
		}
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, id, fmt.Errorf("write %s: remove the old temp file %s: %w", path, name, bareError(err))
		}
		tmp, err = openFile(name, flags, FileMode)
	}
	if err != nil {
		return nil, id, fmt.Errorf("write %s: %w", path, bareError(err))
	}
	f, err := commitTemp(tmp, path, pieces, &id, keep)
	return f, id, countWrite(err)
}

// commitTemp writes data, in pieces, to the new temp file tmp, syncs it,
// renames it over path and syncs the directory. On error the temp file is
// removed. The temp file is locked while it exists, so sweepTemps knows it
// is not a leftover. When id is not nil it is set to the renamed file's
// identity. With keep the file is returned open (and unlocked) rather than
// closed.
func commitTemp(tmp *os.File, path string, data [][]byte, id *fileID, keep bool) (kept *os.File, err error) {
	dir := filepath.Dir(path)
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	tryLock(tmp) // only tells the sweep it is in use
	if err = writePieces(tmp, data); err != nil {
		return nil, fmt.Errorf("write %s: %w", tmp.Name(), bareError(err))
	}
	if err = tmp.Chmod(modeFor(path)); err != nil {
		return nil, fmt.Errorf("write %s: %w", tmp.Name(), bareError(err))
	}
	if err = tmp.Sync(); err != nil {
		return nil, fmt.Errorf("sync %s: %w", tmp.Name(), bareError(err))
	}
	if err = rename(tmp.Name(), path); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, bareError(err))
	}
	if id != nil {
		if info, err := tmp.Stat(); err == nil {
			*id = idOf(info)
		}
	}
	if keep {
		unlockFile(tmp) // no temp file now
		kept = tmp
	} else if err = tmp.Close(); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, bareError(err))
	}
	if err = syncDirectory(dir); err != nil {
		return nil, err // the deferred clean-up closes a kept file
	}
	return kept, nil
}

// Counters of durable writes, for benchmarks and tests that check how much
// work a change costs.
var (
	fileWrites atomic.Int64 // session and other files replaced atomically
	fsyncs     atomic.Int64
)

// WriteStats returns how many files this process replaced atomically and
// how many fsyncs it made for them and for history lines.
func WriteStats() (writes, syncs int64) { return fileWrites.Load(), fsyncs.Load() }

// countWrite counts a successful atomic replace: the file's and the
// directory's fsync.
func countWrite(err error) error {
	if err == nil {
		fileWrites.Add(1)
		fsyncs.Add(2)
	}
	return err
}

func syncFile(f interface{ Sync() error }) error {
	fsyncs.Add(1)
	return f.Sync()
}

// syncDir fsyncs the directory holding path, so a new entry in it
// survives a crash.
func syncDir(path string) error {
	fsyncs.Add(1)
	return syncDirectory(filepath.Dir(path))
}
