package testenv

import (
	"fmt"
	"os"
	"path/filepath"
)

// BuildFlags are the flags of `go build` for a fake a test starts (such
// as agent/acpagent/internal/fakeacp): -race when the test itself runs
// under -race, so a data race inside the fake is reported too.
func BuildFlags() []string {
	if !Race {
		return nil
	}
	return []string{"-race"}
}

// HaltOnRace makes a race-built child stop at its first data race (exit
// status 66) rather than at its exit, which a test that kills its fake
// never sees, and write the report to a file under dir, since a test
// shows only the last line of a child's stderr. It sets GORACE for the
// test's own process, which Env passes on. The function it returns, called
// after the tests, copies the reports to stderr and says whether there
// were any. Without -race, or with GORACE already set, it does nothing.
func HaltOnRace(dir string) (reported func() bool) {
	if _, set := os.LookupEnv("GORACE"); !Race || set {
		return func() bool { return false }
	}
	prefix := filepath.Join(dir, "race")
	os.Setenv("GORACE", "halt_on_error=1 log_path="+prefix)
	return func() bool {
		files, _ := filepath.Glob(prefix + ".*")
		for _, f := range files {
			b, _ := os.ReadFile(f)
			fmt.Fprintf(os.Stderr, "a data race in a child (%s):\n%s", f, b)
		}
		return len(files) > 0
	}
}
