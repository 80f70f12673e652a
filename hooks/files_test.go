package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// settingsCases are the settings files a person may have, as bytes, by
// name; the golden file of a case and agent is what install makes of it.
var settingsCases = []struct {
	name, file string // file: under testdata/settings, or "" for text
	text       string
	agents     []string
	wantErr    string // for every agent of the case
}{
	{name: "comments", file: "comments.json", agents: []string{"gemini", "qwen"}},
	{name: "comments", file: "comments.json", agents: []string{"claude", "codex"}, wantErr: "this agent does not read comments"},
	{name: "crlf", file: "crlf.json", agents: []string{"claude", "gemini", "qwen", "codex"}},
	{name: "crlf-comments", file: "crlf-comments.json", agents: []string{"gemini", "qwen"}},
	{name: "empty-object", text: "{}", agents: []string{"claude", "gemini", "qwen", "codex"}},
	{name: "empty-object-nl", text: "{}\n", agents: []string{"claude", "gemini", "qwen", "codex"}},
	{name: "empty", text: "", agents: []string{"claude", "gemini", "qwen", "codex"}},
	{name: "blank", text: " \n\t\n", agents: []string{"claude", "gemini", "qwen", "codex"}},
	{name: "unclosed-comment", text: "{} /* no end", agents: []string{"gemini"}, wantErr: "never closed"},
}

// TestSettingsFilesGolden installs into each case's file on disk, compares
// with its golden file, installs again (no change), uninstalls and finds
// the file byte for byte as it was, with its mode.
func TestSettingsFilesGolden(t *testing.T) {
	for _, tc := range settingsCases {
		before := []byte(tc.text)
		if tc.file != "" {
			var err error
			if before, err = os.ReadFile(filepath.Join("testdata", "settings", tc.file)); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range tc.agents {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				a, _ := Lookup(name)
				dir := t.TempDir()
				path, rec := filepath.Join(dir, "settings.json"), Record(filepath.Join(dir, "home", "hooks-files.json"))
				if err := os.WriteFile(path, before, 0o640); err != nil {
					t.Fatal(err)
				}
				changed, err := Install(path, a, testExe, rec)
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("install: err %v, want %q", err, tc.wantErr)
					}
					if got, _ := os.ReadFile(path); !bytes.Equal(got, before) {
						t.Fatalf("a refused file changed:\n%q", got)
					}
					return
				}
				if err != nil || !changed {
					t.Fatalf("install: %v %v", changed, err)
				}
				after, _ := os.ReadFile(path)
				checkGolden(t, filepath.Join("testdata", "settings", tc.name+"."+name+".golden"), after)
				if bytes.Contains(before, []byte("\r\n")) && bytes.Count(after, []byte("\n")) != bytes.Count(after, []byte("\r\n")) {
					t.Errorf("a CRLF file got LF lines:\n%q", after)
				}
				if changed, err := Install(path, a, testExe, rec); changed || err != nil {
					t.Errorf("second install: %v %v", changed, err)
				}
				if rep := Status(path, a, ScopeUser); rep.Err != nil || len(rep.Missing) != 0 {
					t.Errorf("status after install: %s %v", rep.State(), rep.Err) // (broken: testExe is not there)
				}
				if changed, err := Uninstall(path, a, rec); !changed || err != nil {
					t.Fatalf("uninstall: %v %v", changed, err)
				}
				back, err := os.ReadFile(path)
				if err != nil || !bytes.Equal(back, before) {
					t.Errorf("uninstall: got %q (%v), want the file as it was %q", back, err, before)
				}
				if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
					t.Errorf("mode %v, want 0640", info.Mode().Perm())
				}
			})
		}
	}
}

// TestSettingsFileKinds: a file that was not there, a symlink and a
// dangling symlink are given back as they were.
func TestSettingsFileKinds(t *testing.T) {
	claude, _ := Lookup("claude")
	t.Run("absent", func(t *testing.T) {
		dir := t.TempDir()
		path, rec := filepath.Join(dir, ".claude", "settings.json"), Record(filepath.Join(dir, "rec.json"))
		if changed, err := Install(path, claude, testExe, rec); !changed || err != nil {
			t.Fatal(changed, err)
		}
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("new file: %v %v", info, err)
		}
		if changed, err := Uninstall(path, claude, rec); !changed || err != nil {
			t.Fatal(changed, err)
		}
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the file install created is still there: %v", err)
		}
	})
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		target, link := filepath.Join(dir, "dotfiles", "claude.json"), filepath.Join(dir, "settings.json")
		os.MkdirAll(filepath.Dir(target), 0o755)
		os.WriteFile(target, []byte("{\"model\": \"opus\"}\n"), 0o644)
		os.Symlink("dotfiles/claude.json", link)
		rec := Record(filepath.Join(dir, "rec.json"))
		if _, err := Install(link, claude, testExe, rec); err != nil {
			t.Fatal(err)
		}
		if dest, err := os.Readlink(link); err != nil || dest != "dotfiles/claude.json" {
			t.Fatalf("the symlink is now %q %v", dest, err)
		}
		if data, _ := os.ReadFile(target); !bytes.Contains(data, []byte("hook claude stop")) {
			t.Fatalf("the target was not installed into:\n%s", data)
		}
		Uninstall(link, claude, rec)
		if data, _ := os.ReadFile(target); string(data) != "{\"model\": \"opus\"}\n" {
			t.Fatalf("uninstall: %q", data)
		}
	})
	t.Run("dangling symlink", func(t *testing.T) {
		dir := t.TempDir()
		link := filepath.Join(dir, "settings.json")
		os.Symlink("dotfiles/missing.json", link)
		rec := Record(filepath.Join(dir, "rec.json"))
		if _, err := Install(link, claude, testExe, rec); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("the symlink was replaced: %v %v", info, err)
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "dotfiles", "missing.json")); !bytes.Contains(data, []byte("hook claude stop")) {
			t.Fatalf("the link's target was not created:\n%s", data)
		}
		Uninstall(link, claude, rec)
		if dest, err := os.Readlink(link); err != nil || dest != "dotfiles/missing.json" {
			t.Fatalf("the symlink is now %q %v", dest, err)
		}
		if _, err := os.Stat(link); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the symlink no longer dangles: %v", err)
		}
	})
}

// TestSettingsConcurrentWriter: while another program saves the file over
// and over (as editors do: a new file renamed over it), install and
// uninstall run again and again; none of that program's saves is undone,
// so its last one is in the file at the end, and every install or
// uninstall either made its change or said it gave up. (While one runs,
// the file may hold its version for an instant before it puts the other
// program's save back: the check reads between them.)
func TestSettingsConcurrentWriter(t *testing.T) {
	gemini, _ := Lookup("gemini")
	dir := t.TempDir()
	path, rec := filepath.Join(dir, "settings.json"), Record(filepath.Join(dir, "rec.json"))
	save := func(n int) {
		tmp := filepath.Join(dir, fmt.Sprintf(".edit-%d", n))
		os.WriteFile(tmp, []byte(fmt.Sprintf("{\n  \"save\": %d\n}\n", n)), 0o644)
		if err := os.Rename(tmp, path); err != nil {
			t.Error(err)
		}
	}
	save(0)
	const saves = 200
	// The installer holds mu for each install or uninstall, so the check
	// below reads the file between two of them, never in the middle of
	// one; the saves race them.
	var wg sync.WaitGroup
	var mu sync.Mutex
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, op := range []func() (bool, error){
				func() (bool, error) { return Install(path, gemini, testExe, rec) },
				func() (bool, error) { return Uninstall(path, gemini, rec) },
			} {
				mu.Lock()
				_, err := op()
				mu.Unlock()
				if err != nil && !errors.Is(err, ErrBusy) {
					t.Error(err)
				}
			}
		}
	}()
	for n := 1; n <= saves; n++ {
		save(n)
		// Each save must still be in the file once the program saved it:
		// a hook install in between may add its entries, never take the
		// save back.
		mu.Lock()
		data, _ := os.ReadFile(path)
		mu.Unlock()
		if !bytes.Contains(data, []byte(fmt.Sprintf("\"save\": %d", n))) {
			t.Errorf("save %d was undone:\n%s", n, data)
		}
	}
	close(stop)
	wg.Wait()
	data, _ := os.ReadFile(path)
	if !bytes.Contains(data, []byte(fmt.Sprintf("\"save\": %d", saves))) {
		t.Fatalf("the last save was undone:\n%s", data)
	}
}
