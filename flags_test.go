package main

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzFlagErrors: whatever the command line, todosh either starts or
// says why not in one line on stderr that names todosh and the fix
// (exit 2), and never names a flag in Go's single-dash spelling
// (-session); nothing panics.
func FuzzFlagErrors(f *testing.F) {
	for _, s := range []string{
		"--bogus", "-bogus", "--session", "-c", "--continue-delay\x00soon", "--resume=maybe",
		"-session\x00x", "--agent\x00acp\x00--\x00-c\x00x", "---x", "-=", "--=x", "-c=", "--c\x00x\x00y",
		"--lock-timeout\x000s", "--color\x00pink", "-:", "--:\x00x", "--agent-arg",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		for _, a := range args {
			if a == "--help" || a == "-h" || a == "--version" || strings.HasPrefix(a, "--he") {
				return // prints help, not an error
			}
		}
		cfg, err := parseFlags(args, &bytes.Buffer{}, noEnv, false)
		if err == nil {
			if cfg.Backend == nil {
				t.Fatalf("%q: no error and no agent", args)
			}
			return
		}
		msg := err.Error()
		if strings.ContainsAny(msg, "\n\r") && !strings.ContainsAny(line, "\n\r") {
			t.Fatalf("%q: a message of more than one line: %q", args, msg)
		}
		for _, name := range []string{"session", "resume", "agent", "continue-delay", "color"} {
			if strings.Contains(msg, "flag -"+name) && !strings.Contains(line, "-"+name) {
				t.Fatalf("%q: %q names a flag with one dash", args, msg)
			}
		}
		var out, stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &stderr, noEnv); code != 2 && code != 0 ||
			code == 2 && (!strings.HasPrefix(stderr.String(), "todosh: ") || !strings.HasSuffix(stderr.String(), " (see todosh --help)\n")) {
			t.Fatalf("%q: exit %d, stderr %q", args, code, stderr.String())
		}
	})
}
