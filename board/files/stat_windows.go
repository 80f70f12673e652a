//go:build windows

package files

import (
	"os"
	"path/filepath"
)

// dirStat stats names in one directory. Windows has no fstatat: each name
// is one Lstat, and there is no inode number, so the index (index.go)
// knows a rewritten item file by its size and its mtime (NTFS keeps 100 ns).
type dirStat struct{ dir string }

func openDirStat(dir string) (*dirStat, error) { return &dirStat{dir: dir}, nil }

// stat returns a file's size, mtime in nanoseconds and 0 for the inode,
// without following a symlink.
func (d *dirStat) stat(name string) (size, mtime int64, ino uint64, err error) {
	info, err := os.Lstat(filepath.Join(d.dir, name))
	if err != nil {
		return 0, 0, 0, err
	}
	return info.Size(), info.ModTime().UnixNano(), 0, nil
}

func (d *dirStat) close() {}
