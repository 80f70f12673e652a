// Package testenv builds the environment of every process a test starts
// (todosh, a fake agent, the test binary run again as a helper) from
// scratch, so that no test depends on the environment of whoever runs it:
// NO_COLOR, TERM, COLUMNS, an OPENAI_API_KEY, a TODOSH_SESSION set by an
// enclosing todosh, an agent's config directory. It is imported only by
// tests, never linked into the binary (ARCHITECTURE.md §1).
package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// passed are the only variables taken from the test's own environment:
// where programs are found (PATH; a fake agent may be a shell script),
// where temp files go (TMPDIR), where coverage is written (GOCOVERDIR) and
// what a race-built child does on a data race (GORACE, see HaltOnRace).
// None of them changes what todosh shows or which agent it talks to.
// On Windows a program also needs its system's own variables (SystemRoot
// for DLLs and sockets, ComSpec for cmd.exe, PATHEXT for finding
// programs, TEMP for temp files); unset elsewhere, they pass nothing.
var passed = []string{"PATH", "TMPDIR", "GOCOVERDIR", "GORACE", "SystemRoot", "windir", "ComSpec", "PATHEXT", "TEMP", "TMP"}

// fakePrefixes name the variables that configure the repository's own fakes
// (agent/clis/internal/fakecli, agent/acpagent/internal/fakeacp,
// e2e/fakeshell). Tests set them on themselves with t.Setenv for the
// processes they start, so they are passed on; nothing outside the
// repository reads them.
var fakePrefixes = []string{"FAKECLI_", "FAKEACP_", "FAKESHELL_"}

// Env is the whole environment of a child started by a test: the passed
// variables, the fakes' variables the test set, HOME=home, TODOSH_HOME=home/todosh-home and TERM=xterm (a
// terminal that takes colour; a test of another terminal says so in
// extra), then extra ("NAME=value" each), which win over what comes
// before them.
func Env(home string, extra ...string) []string {
	var env []string
	for _, name := range passed {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	for _, kv := range os.Environ() {
		for _, p := range fakePrefixes {
			if strings.HasPrefix(kv, p) {
				env = append(env, kv)
			}
		}
	}
	env = append(env, "HOME="+home, "TODOSH_HOME="+Root(home), "TERM=xterm")
	if runtime.GOOS == "windows" {
		// os.UserHomeDir and the agents read USERPROFILE there, and their
		// settings live under APPDATA and LOCALAPPDATA.
		env = append(env, "USERPROFILE="+home, "APPDATA="+filepath.Join(home, "AppData", "Roaming"), "LOCALAPPDATA="+filepath.Join(home, "AppData", "Local"))
	}
	return Override(env, extra...)
}

// Root is the TODOSH_HOME that Env gives a child whose HOME is home.
func Root(home string) string { return filepath.Join(home, "todosh-home") }

// Override returns env with each of extra ("NAME=value") in place of the
// variable of that name, or added; a later entry wins. The result has one
// entry per name, so what a child sees does not depend on how it picks
// between duplicates.
func Override(env []string, extra ...string) []string {
	out := make([]string, 0, len(env)+len(extra))
	at := map[string]int{}
	for _, kv := range append(append([]string(nil), env...), extra...) {
		name := kv
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				name = kv[:i]
				break
			}
		}
		if i, ok := at[name]; ok {
			out[i] = kv
			continue
		}
		at[name] = len(out)
		out = append(out, kv)
	}
	return out
}
