package backends

import (
	"strings"
	"testing"
)

func TestVersionAtLeast(t *testing.T) {
	tests := []struct {
		v, min string
		want   bool
	}{
		{"2.1.332", "2.1.233", true}, {"2.1.233", "2.1.233", true}, {"2.1.197", "2.1.233", false},
		{"2.2", "2.1.233", true}, {"v0.169.0", "0.169.0", true}, {"0.137.0-alpha.1", "0.169.0", false},
		{"garbage", "2.1.233", true}, {"10.0.0", "9.9.9", true},
	}
	for _, tt := range tests {
		if got := versionAtLeast(tt.v, tt.min); got != tt.want {
			t.Errorf("versionAtLeast(%q, %q) = %v", tt.v, tt.min, got)
		}
	}
}

// TestClaudeRules: the version rule and the person's variable.
func TestClaudeRules(t *testing.T) {
	none := func(string) string { return "" }
	off := func(k string) string {
		if k == "CLAUDE_CODE_ENABLE_TODO_TOOLS" {
			return "0"
		}
		return ""
	}
	if c := checkClaude("2.1.197", off); strings.Contains(c.TodoTools, "deferred") || len(c.Notes) != 0 {
		t.Errorf("2.1.197: %+v", c)
	}
	if c := checkClaude("2.1.332", none); !strings.Contains(c.TodoTools, "deferred behind ToolSearch") || len(c.Notes) != 0 {
		t.Errorf("2.1.332: %+v", c)
	}
	if c := checkClaude("2.1.332", off); len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "CLAUDE_CODE_ENABLE_TODO_TOOLS=0") {
		t.Errorf("2.1.332 with the variable off: %+v", c)
	}
	for i := range Table {
		if b := &Table[i]; b.Bin != "" && b.Package == "" && b.Name != "qwen" && b.Name != "pi" && b.Name != "acp" {
			t.Errorf("%s has no npm package for doctor's fix", b.Name)
		}
	}
}

// TestQwenRules: Qwen Code 0.24 and later need a setting for todo_write
// (seen with 0.24.4); 0.15.10 offered it without one.
func TestQwenRules(t *testing.T) {
	none := func(string) string { return "" }
	if c := checkQwen("0.15.10", none); c.TodoTools != "todo_write" || len(c.Notes) != 0 {
		t.Errorf("0.15.10: %+v", c)
	}
	for _, v := range []string{"0.24.4", "1.0.0", ""} {
		if c := checkQwen(v, none); len(c.Notes) != 1 || !strings.Contains(c.Notes[0], QwenTodoSetting) || !strings.Contains(c.Notes[0], "0.24 and later") {
			t.Errorf("%q: %+v", v, c)
		}
	}
}

// FuzzParseVersion: any string parses or not without panicking, and a
// version is at least itself.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"2.1.332", "v0.169.0", "0.137.0-alpha.1", "", "1..2", "9999999999999999999999.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, ok := parseVersion(s); ok && !versionAtLeast(s, s) {
			t.Fatalf("%q is not at least itself", s)
		}
	})
}
