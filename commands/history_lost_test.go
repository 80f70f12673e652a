package commands

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A history that lost changes 3-5 (nothing unreadable in it) says so as
// it is: /todo history names the missing changes and does not speak of
// unreadable lines, and /todo history show 4 says change 4 was lost
// rather than that the history holds changes 1-6.
func TestHistoryOfLostChanges(t *testing.T) {
	env, out := newTestEnv(t)
	hist := env.Store.SessionHistoryPath(testSession)
	if err := os.MkdirAll(filepath.Dir(hist), 0o700); err != nil {
		t.Fatal(err)
	}
	line := func(n int, items string) string {
		return `{"n":` + strconv.Itoa(n) + `,"v":2,"from":` + strconv.Itoa(n) + `,"at":"2026-11-21T11:00:00Z","by":"you","what":"change ` + strconv.Itoa(n) + `","todos":[` + items + `]}` + "\n"
	}
	a := `{"content":"a","status":"pending"}`
	b := `{"content":"b","status":"pending"}`
	data := line(1, a) + line(2, a+","+b) + line(6, b)
	if err := os.WriteFile(hist, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	if err := reg.Run(env, "/todo history"); err != nil {
		t.Fatal(err)
	}
	warning := strings.SplitN(out.String(), "\n", 2)[0]
	if !strings.Contains(warning, "changes 3-5 missing") || strings.Contains(warning, "unreadable") {
		t.Errorf("/todo history's warning: %q", warning)
	}
	for _, tc := range []struct {
		n, want string
	}{
		{"4", "no change 4: it was lost from the history (changes 3-5 missing), so the list after it is not known; /todo history shows the changes kept"},
		{"3", "no change 3: it was lost from the history (changes 3-5 missing)"},
		{"7", "no change 7: the history holds changes 1-6"},
	} {
		out.Reset()
		err := reg.Run(env, "/todo history show "+tc.n)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("/todo history show %s: %v, want %q", tc.n, err, tc.want)
		}
	}
	out.Reset()
	if err := reg.Run(env, "/todo history show 6"); err != nil || !strings.Contains(out.String(), "After change 6") {
		t.Errorf("/todo history show 6: %v\n%s", err, out.String())
	}
}
