package clis

import (
	"regexp"
	"testing"
)

// FuzzTaskCreatedID: taskCreatedID finds the id the regular expression
// it replaced found, in any text.
func FuzzTaskCreatedID(f *testing.F) {
	old := regexp.MustCompile(`Task #([A-Za-z0-9._-]+) created`)
	for _, s := range []string{"Task #3 created successfully: Write tests", "Task #a.b_c-1 created", "Task # created", "Task #x Task #7 created", "Task #9 createdx", "no task"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want := ""
		if m := old.FindStringSubmatch(text); m != nil {
			want = m[1]
		}
		if got := taskCreatedID(text); got != want {
			t.Errorf("taskCreatedID(%q) = %q, want %q", text, got, want)
		}
	})
}
