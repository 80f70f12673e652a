package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxSettings bounds a settings file todosh reads.
const maxSettings = 4 << 20

// readSettings reads a settings file: its bytes, mode and whether it
// exists. A symlink is followed, so the file it names is the one edited.
func readSettings(path string) (data []byte, mode fs.FileMode, exists bool, err error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o600, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !info.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s is not a regular file", path)
	}
	if info.Size() > maxSettings {
		return nil, 0, false, fmt.Errorf("%s is larger than %d bytes", path, maxSettings)
	}
	data, err = os.ReadFile(path)
	return data, info.Mode().Perm(), true, err
}

// writeSettings replaces path's content atomically (a temporary file in
// the same directory, synced, renamed over it, the directory synced),
// with mode; a symlink is followed and stays a symlink.
func writeSettings(path string, data []byte, mode fs.FileMode) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".todosh-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Install adds todosh's entries for agent a, running exe, to the settings
// file at path; changed is false when they were all there already. A file
// that cannot be read as settings is left as it is.
func Install(path string, a Agent, exe string) (changed bool, err error) {
	data, mode, _, err := readSettings(path)
	if err != nil {
		return false, err
	}
	out, err := install(data, a, exe)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if bytes.Equal(out, data) {
		return false, nil
	}
	return true, writeSettings(path, out, mode)
}

// Uninstall removes todosh's entries for agent a from the settings file at
// path; changed is false when there were none. A file left exactly as
// install creates one is removed, as it was not there before.
func Uninstall(path string, a Agent) (changed bool, err error) {
	data, mode, exists, err := readSettings(path)
	if err != nil || !exists {
		return false, err
	}
	out, err := uninstall(data, a)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if bytes.Equal(out, data) {
		return false, nil
	}
	if string(out) == newFile {
		return true, os.Remove(path)
	}
	return true, writeSettings(path, out, mode)
}

// Status reports what the settings file at path holds for agent a.
func Status(path string, a Agent, scope Scope) Report {
	data, _, exists, err := readSettings(path)
	r := Report{Agent: a, Scope: scope, Path: path, Exists: exists, Err: err}
	if err != nil {
		return r
	}
	rep, err := inspect(data, a, func(exe string) bool { _, err := os.Stat(exe); return err == nil })
	rep.Scope, rep.Path, rep.Exists, rep.Err = scope, path, exists, err
	return rep
}
