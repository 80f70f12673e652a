package testenv

import "os"

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
// status 66, the report on its stderr) rather than at its exit, which a
// test that kills its fake never sees. It sets GORACE for the test's own
// process, which Env passes on; it does nothing without -race or when
// GORACE is already set.
func HaltOnRace() {
	if _, set := os.LookupEnv("GORACE"); Race && !set {
		os.Setenv("GORACE", "halt_on_error=1")
	}
}
