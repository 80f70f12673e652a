//go:build unix

package hooks

import (
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestSettingsOwner: installing as root into another user's file (and
// into their home where the file is missing) keeps that user's owner,
// group and mode, and uninstall too.
func TestSettingsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the case is root installing into another user's file")
	}
	u := secondUser(t)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	claude, _ := Lookup("claude")
	home := t.TempDir()
	os.Chmod(home, 0o755)
	os.Chown(home, uid, gid)
	rec := Record(filepath.Join(t.TempDir(), "rec.json"))
	owned := func(p string, mode fs.FileMode) {
		t.Helper()
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := info.Sys().(*syscall.Stat_t)
		if int(st.Uid) != uid || int(st.Gid) != gid || mode != 0 && info.Mode().Perm() != mode {
			t.Fatalf("%s: owner %d:%d mode %v, want %d:%d %v", p, st.Uid, st.Gid, info.Mode().Perm(), uid, gid, mode)
		}
	}
	// A file of theirs.
	path := filepath.Join(home, "settings.json")
	os.WriteFile(path, []byte("{\"model\": \"opus\"}\n"), 0o644)
	os.Chown(path, uid, gid)
	if _, err := Install(path, claude, testExe, rec); err != nil {
		t.Fatal(err)
	}
	owned(path, 0o644)
	if _, err := Uninstall(path, claude, rec); err != nil {
		t.Fatal(err)
	}
	owned(path, 0o644)
	// Missing, with its directory: both theirs.
	path = filepath.Join(home, ".claude", "settings.json")
	if _, err := Install(path, claude, testExe, rec); err != nil {
		t.Fatal(err)
	}
	owned(filepath.Dir(path), 0)
	owned(path, 0o600)
}

// secondUser is a user other than root for the test, made with useradd
// (and removed after it) when there is none to use.
func secondUser(t *testing.T) *user.User {
	t.Helper()
	const name = "todosh-hooks-test"
	if u, err := user.Lookup(name); err == nil {
		return u
	}
	if out, err := exec.Command("useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		t.Skipf("needs a second user: useradd: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	u, err := user.Lookup(name)
	if err != nil {
		t.Skipf("needs a second user: %v", err)
	}
	return u
}
