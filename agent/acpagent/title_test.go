package acpagent

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzSetTodosTitle: setTodosTitle says what the regular expression it
// replaced said, for any title.
func FuzzSetTodosTitle(f *testing.F) {
	old := regexp.MustCompile(`(?i)^set \d+ todo`)
	for _, s := range []string{"Set 3 todo(s)", "Settle the todo", "SET 12 TODOS", "ſet 1 todo", "set  todo", "Update write_todos", "set 4 tоdo", "set 5 todK"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		want := old.MatchString(title) || strings.Contains(strings.ToLower(title), "write_todos")
		if got := setTodosTitle(title); got != want {
			t.Errorf("setTodosTitle(%q) = %v, want %v", title, got, want)
		}
	})
}
