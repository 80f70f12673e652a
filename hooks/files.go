package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/todosh/todosh/todostore"
)

// Settings files are the person's. Install and uninstall change only
// todosh's entries, and the file stays the person's file: its comments and
// line breaks (jsonedit.go), its mode, owner and group, a symlink (also
// one whose target does not exist yet) stays a symlink, and an empty or
// blank file, or one that was not there, is given back exactly as it was
// (Record). A write by someone else between todosh's read and its rename
// is never undone: the file is compared before it is replaced, and the
// change is made again on what is there now (replace).

// maxSettings bounds a settings file todosh reads.
const maxSettings = 4 << 20

// maxAttempts bounds how often a change is made again on a file that
// another program keeps saving.
const maxAttempts = 5

// ErrBusy is the error of a change given up because another program kept
// saving the file; the file is as that program left it.
var ErrBusy = errors.New("another program kept saving the file while todosh changed it (the file is as that program left it): run the command again")

// settingsFile is one settings file as read.
type settingsFile struct {
	// path is the file named; real is the file written, with symlinks
	// followed, also to a target that does not exist.
	path, real string
	data       []byte
	exists     bool
	mode       fs.FileMode
	// own is the owner and group the file keeps (a new file: its
	// directory's).
	own owner
}

// maxLinks bounds the symlinks followed to a settings file.
const maxLinks = 40

// realPath follows the symlinks of path, also a last one whose target does
// not exist (install creates that target, and the link stays).
func realPath(path string) (string, error) {
	p := path
	for range maxLinks {
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = target
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// readSettings reads the settings file at path.
func readSettings(path string) (*settingsFile, error) {
	real, err := realPath(path)
	if err != nil {
		return nil, err
	}
	f := &settingsFile{path: path, real: real, mode: 0o600}
	info, err := os.Stat(real)
	if errors.Is(err, fs.ErrNotExist) {
		f.own, err = newOwner(filepath.Dir(real))
		return f, err
	}
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if info.Size() > maxSettings {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxSettings)
	}
	if f.data, err = os.ReadFile(real); err != nil {
		return nil, err
	}
	f.exists, f.mode, f.own = true, info.Mode().Perm(), ownerOf(info)
	return f, nil
}

// current reports whether the file still holds what f read (or is still
// absent).
func (f *settingsFile) current() (bool, error) {
	data, err := os.ReadFile(f.real)
	if errors.Is(err, fs.ErrNotExist) {
		return !f.exists, nil
	}
	return err == nil && f.exists && bytes.Equal(data, f.data), err
}

// replace puts data in the file atomically (a temporary file in the same
// directory with the file's mode, owner and group, synced, then put in
// its place) unless the file no longer holds what f read: then changed
// is false and nothing was written. The last check is atomic where the
// system can exchange two files (exchange): what the exchange took out is
// compared, and put back when it was someone else's.
func (f *settingsFile) replace(data []byte) (ok bool, err error) {
	dir := filepath.Dir(f.real)
	if err := mkdirOwned(dir, f.own); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.real)+".todosh-*")
	if err != nil {
		return false, err
	}
	name := tmp.Name()
	defer os.Remove(name)
	err = writeTemp(tmp, data, f.mode, f.own)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	if cur, err := f.current(); err != nil || !cur {
		return false, err
	}
	if !f.exists {
		// A new file: a link fails if someone created the file meanwhile.
		if err := os.Link(name, f.real); errors.Is(err, fs.ErrExist) {
			return false, nil
		} else if err != nil {
			return false, err
		}
		syncDir(dir)
		return true, nil
	}
	swapped, err := exchange(name, f.real)
	if err != nil {
		return false, err
	}
	if !swapped {
		// No exchange on this system: the compare above is the check.
		if err := os.Rename(name, f.real); err != nil {
			return false, err
		}
		syncDir(dir)
		return true, nil
	}
	took, err := os.ReadFile(name)
	if err == nil && bytes.Equal(took, f.data) {
		syncDir(dir)
		return true, nil
	}
	// Someone saved the file between the compare and the exchange: give
	// their file back.
	if _, err := exchange(name, f.real); err != nil {
		return false, fmt.Errorf("another program saved %s while todosh changed it, and putting its file back failed (it is %s): %w", f.real, name, err)
	}
	return false, nil
}

// remove removes the file unless it no longer holds what f read.
func (f *settingsFile) remove() (bool, error) {
	if cur, err := f.current(); err != nil || !cur {
		return false, err
	}
	if err := os.Remove(f.real); err != nil {
		return false, err
	}
	syncDir(filepath.Dir(f.real))
	return true, nil
}

func writeTemp(tmp *os.File, data []byte, mode fs.FileMode, own owner) error {
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if err := chownFile(tmp, own); err != nil {
		return fmt.Errorf("keep the file's owner and group: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	return tmp.Sync()
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// change reads the settings file at path, computes its next content with
// fn and writes it, again on the file as it is now when another program
// saved it meanwhile (at most maxAttempts times). fn returns the new
// bytes, or remove to take the file away. changed is false when fn left
// the file as it was.
func change(path string, fn func(f *settingsFile) (out []byte, remove bool, err error)) (changed bool, err error) {
	for range maxAttempts {
		f, err := readSettings(path)
		if err != nil {
			return false, err
		}
		out, rm, err := fn(f)
		if err != nil {
			return false, err
		}
		var ok bool
		switch {
		case rm:
			ok, err = f.remove()
		case f.exists && bytes.Equal(out, f.data), !f.exists && out == nil:
			return false, nil
		default:
			ok, err = f.replace(out)
		}
		if err != nil || ok {
			return ok, err
		}
	}
	return false, fmt.Errorf("%s: %w", path, ErrBusy)
}

// Install adds todosh's entries for agent a, running exe, to the settings
// file at path; changed is false when they were all there already. A file
// that cannot be read as settings is left as it is. rec keeps what install
// found where it had to create or fill the file.
func Install(path string, a Agent, exe string, rec Record) (changed bool, err error) {
	var was *fileWas
	changed, err = change(path, func(f *settingsFile) ([]byte, bool, error) {
		out, err := install(f.data, a, exe)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		was = nil
		if len(bytes.TrimSpace(f.data)) == 0 {
			was = &fileWas{Absent: !f.exists, Text: string(f.data)}
		}
		return out, false, nil
	})
	if err == nil && changed && was != nil {
		err = rec.put(path, was)
	}
	return changed, err
}

// Uninstall removes todosh's entries for agent a from the settings file at
// path; changed is false when there were none. A file left exactly as
// install made it from nothing is given back as it was: removed when
// there was none, emptied or blanked as it was.
func Uninstall(path string, a Agent, rec Record) (changed bool, err error) {
	was, err := rec.get(path)
	if err != nil {
		return false, err
	}
	changed, err = change(path, func(f *settingsFile) ([]byte, bool, error) {
		if !f.exists {
			return nil, false, nil
		}
		out, err := uninstall(f.data, a)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		if bytes.Equal(out, f.data) || string(out) != newFile || was == nil {
			return out, false, nil
		}
		if was.Absent {
			return nil, true, nil
		}
		return []byte(was.Text), false, nil
	})
	if err == nil && changed && was != nil {
		err = rec.put(path, nil)
	}
	return changed, err
}

// Status reports what the settings file at path holds for agent a.
func Status(path string, a Agent, scope Scope) Report {
	f, err := readSettings(path)
	r := Report{Agent: a, Scope: scope, Path: path, Err: err}
	if err != nil {
		return r
	}
	rep, err := inspect(f.data, a, func(exe string) bool { _, err := os.Stat(exe); return err == nil })
	rep.Scope, rep.Path, rep.Exists, rep.Err = scope, path, f.exists, err
	return rep
}

// Record is the file in which install keeps what it found at a settings
// file that it had to create or fill (none, or an empty or blank file),
// so that uninstall gives it back exactly; "" keeps nothing (uninstall
// then leaves "{}"). It lives in todosh's home, not beside the person's
// settings.
type Record string

// fileWas is what a settings file was before install made it.
type fileWas struct {
	Absent bool   `json:"absent,omitempty"`
	Text   string `json:"text,omitempty"`
}

func (r Record) load() (map[string]fileWas, error) {
	m := map[string]fileWas{}
	data, err := os.ReadFile(string(r))
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w (remove it: uninstall then leaves files todosh created holding {})", r, err)
	}
	return m, nil
}

func recordKey(path string) string {
	if real, err := realPath(path); err == nil {
		path = real
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path
}

func (r Record) get(path string) (*fileWas, error) {
	if r == "" {
		return nil, nil
	}
	m, err := r.load()
	if err != nil {
		return nil, err
	}
	if w, ok := m[recordKey(path)]; ok {
		return &w, nil
	}
	return nil, nil
}

// put keeps was for path, or forgets path when was is nil.
func (r Record) put(path string, was *fileWas) error {
	if r == "" {
		return nil
	}
	m, err := r.load()
	if err != nil {
		return err
	}
	if was == nil {
		delete(m, recordKey(path))
	} else {
		m[recordKey(path)] = *was
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(string(r)), 0o700); err != nil {
		return err
	}
	return todostore.WriteFileAtomic(string(r), append(data, '\n'))
}
