package todostore

import (
	"os"
	"path/filepath"
)

// statNames lstats names in the directory open as dir, one path each:
// Windows has no stat relative to a directory handle in the standard
// library.
func statNames(dir *os.File, names []string) []NameStat {
	out := make([]NameStat, len(names))
	for i, name := range names {
		info, err := os.Lstat(filepath.Join(dir.Name(), name))
		if err != nil {
			continue
		}
		mode := info.Mode().Type()
		if mode&^(os.ModeDir|os.ModeSymlink) != 0 {
			mode = os.ModeIrregular
		}
		out[i] = NameStat{OK: true, ModTime: info.ModTime(), Size: info.Size(), Mode: mode}
	}
	return out
}
