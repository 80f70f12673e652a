package doctor

import (
	"regexp"
	"testing"
)

// FuzzFindVersion: findVersion finds what the regular expression it
// replaced found, in any output.
func FuzzFindVersion(f *testing.F) {
	old := regexp.MustCompile(`\d+\.\d+(\.\d+)?([-+][0-9A-Za-z.]+)?`)
	for _, s := range []string{"2.1.332 (Claude Code)", "codex-cli 0.169.0", "0.61.0-nightly.2", "v1.2.", "1.2+", "1..2 3.4", "x 10.20.30+build.5 y", "9.9-", "1.2.3.4", "12a.3 4.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		if got, want := findVersion(out), old.FindString(out); got != want {
			t.Errorf("findVersion(%q) = %q, want %q", out, got, want)
		}
	})
}
