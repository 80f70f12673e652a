//go:build unix

package todostore

import (
	"io/fs"
	"os"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// statNames stats names (without following symlinks) in the directory open
// as dir. fstatat relative to the directory walks one path component
// instead of the whole path (5x faster than os.Lstat here), and large
// directories are split across the CPUs.
func statNames(dir *os.File, names []string) []NameStat {
	dirfd := int(dir.Fd())
	out := make([]NameStat, len(names))
	stat := func(lo, hi int) {
		var st unix.Stat_t
		for i := lo; i < hi; i++ {
			if unix.Fstatat(dirfd, names[i], &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
				out[i] = NameStat{OK: true, ModTime: time.Unix(st.Mtim.Unix()), Size: st.Size, Mode: typeBits(uint32(st.Mode))}
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 4, len(names)/2000)
	if workers <= 1 {
		stat(0, len(names))
		return out
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stat(w*len(names)/workers, (w+1)*len(names)/workers)
		}()
	}
	wg.Wait()
	return out
}

// typeBits turns a stat's mode into fs.FileMode's type bits. st_mode is
// a uint32 on Linux and a uint16 on macOS and the BSDs, hence the
// conversion at the caller.
func typeBits(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
