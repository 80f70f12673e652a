package repl

import (
	"regexp"
	"testing"
)

// FuzzItemMark: itemMark splits a line where the regular expression it
// replaced split it.
func FuzzItemMark(f *testing.F) {
	old := regexp.MustCompile(`^( *\d+\. )([○▸✓✗?]) |^( *\d+\.\d+ )(\[[ x]\]) `)
	for _, s := range []string{"  1. ○ a\n", "12. ▸ b", " 3. ✓ ", "4. ✗ x", "5. ? y", "  2.1 [x] done\n", "2.10 [ ] open", "2. x", "2.1 [y] z", "2.1  [x] ", "2.", "3.1 [x]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, l string) {
		var want [3]string
		wantOK := false
		if m := old.FindStringSubmatchIndex(l); m != nil {
			wantOK = true
			if m[2] >= 0 {
				want = [3]string{l[:m[3]], l[m[4]:m[5]], l[m[5]:]}
			} else {
				want = [3]string{l[:m[7]], l[m[8]:m[9]], l[m[9]:]}
			}
		}
		pre, mark, rest, ok := itemMark(l)
		if ok != wantOK || [3]string{pre, mark, rest} != want {
			t.Errorf("itemMark(%q) = %q %q %q %v, want %q %v", l, pre, mark, rest, ok, want, wantOK)
		}
	})
}
