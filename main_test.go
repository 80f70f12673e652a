package main

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	flag "github.com/spf13/pflag"

	"github.com/todosh/todosh/repl"
)

func TestParseFlags(t *testing.T) {
	base := repl.NewConfig()
	with := func(f func(*repl.Config)) repl.Config {
		c := base
		f(&c)
		return c
	}
	tests := []struct {
		args    []string
		want    repl.Config
		wantErr string
	}{
		{args: nil, want: base},
		{args: []string{"--session", "20261121-223344-7f3a"}, want: with(func(c *repl.Config) { c.SessionID = "20261121-223344-7f3a" })},
		{args: []string{"--session=a.b_c-1"}, want: with(func(c *repl.Config) { c.SessionID = "a.b_c-1" })},
		{args: []string{"-session=a.b_c-1"}, wantErr: "long flags take two dashes (--session)"},
		{args: []string{"--resume"}, want: with(func(c *repl.Config) { c.Resume = true })},
		{args: []string{"-c", "/todo add a", "-c", "/todo show"}, want: with(func(c *repl.Config) { c.Commands = []string{"/todo add a", "/todo show"} })},
		{args: []string{"--session", "../x"}, wantErr: "invalid session id"},
		{args: []string{"--session", "a/b"}, wantErr: "invalid session id"},
		{args: []string{"--session", ".."}, wantErr: "invalid session id"},
		{args: []string{"--session", strings.Repeat("x", 101)}, wantErr: "invalid session id"},
		{args: []string{"--session", "a", "--resume"}, wantErr: "do not go together"},
		{args: []string{"--nope"}, wantErr: "unknown flag --nope"},
		{args: []string{"-c"}, wantErr: "-c needs a value"},
		{args: []string{"hello"}, wantErr: "unexpected argument"},
	}
	for _, tt := range tests {
		got, err := parseFlags(tt.args, &bytes.Buffer{}, noEnv, false)
		if got.Backend != nil && got.Backend.Name == "none" {
			got.Backend = nil // the row of "no agent"
		}
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseFlags(%q) error = %v, want one containing %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseFlags(%q) = %+v, %v; want %+v", tt.args, got, err, tt.want)
		}
	}
}

func TestRunExitStatuses(t *testing.T) {
	root := t.TempDir()
	getenv := func(k string) string {
		if k == "TODOSH_HOME" {
			return root
		}
		return ""
	}
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"--help"}, repl.ExitOK},
		{[]string{"--bogus"}, repl.ExitUsage},
		{[]string{"-c", "/todo add x", "-c", "/todo show"}, repl.ExitOK},
		{[]string{"-c", "/todo delete 9"}, repl.ExitFailed},
		{[]string{"--version"}, repl.ExitOK},
		{[]string{"--color", "sometimes"}, repl.ExitUsage},
		{[]string{"--output", "xml"}, repl.ExitUsage},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		if got := run(tt.args, strings.NewReader(""), &out, &errOut, getenv); got != tt.want {
			t.Errorf("run(%q) = %d, want %d (stdout %q, stderr %q)", tt.args, got, tt.want, out.String(), errOut.String())
		}
	}
}

func TestHelpGoesToStdout(t *testing.T) {
	var out bytes.Buffer
	_, err := parseFlags([]string{"--help"}, &out, noEnv, false)
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "usage: todosh") || !strings.Contains(out.String(), "-session") {
		t.Errorf("--help: err %v, printed %q", err, out.String())
	}
}

func noEnv(string) string { return "" }

func TestVersionAndQuiet(t *testing.T) {
	var out bytes.Buffer
	if _, err := parseFlags([]string{"--version"}, &out, noEnv, false); !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(out.String(), "todosh ") {
		t.Errorf("--version: err %v, printed %q", err, out.String())
	}
	root := t.TempDir()
	getenv := func(k string) string {
		if k == "TODOSH_HOME" {
			return root
		}
		return ""
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"--quiet", "-c", "/todo add x", "-c", "/todo delete 5", "-c", "/todo show"}, strings.NewReader(""), &stdout, &stderr, getenv)
	if code != repl.ExitFailed || stdout.String() != "Todo 0/1 done\n 1. ○ x\n" || !strings.Contains(stderr.String(), "out of range") {
		t.Errorf("--quiet: exit %d, stdout %q, stderr %q; want only the list and the error", code, stdout.String(), stderr.String())
	}
}

func TestAgentFlags(t *testing.T) {
	env := func(vars ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(vars); i += 2 {
				if vars[i] == k {
					return vars[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		args      []string
		getenv    func(string) string
		wantAgent bool
		wantErr   string
	}{
		{args: nil, getenv: noEnv},
		{args: nil, getenv: env("OPENAI_BASE_URL", "http://127.0.0.1:1/v1"), wantAgent: true},
		{args: nil, getenv: env("OPENAI_API_KEY", "k"), wantAgent: true},
		{args: []string{"--agent", "none"}, getenv: env("OPENAI_API_KEY", "k")},
		{args: []string{"--agent", "demo"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--agent", "script:x.json"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--agent", "claude", "--agent-bin", "/bin/true", "--agent-arg", "--x"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--agent", "codex"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--agent", "gemini"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--agent", "qwen"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--agent", "pi", "--idle-limit", "0"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--agent", "pi", "--idle-limit", "-1m"}, getenv: noEnv, wantErr: "--idle-limit -1m0s is negative (0 turns it off)"},
		{args: []string{"--agent", "gpt"}, getenv: noEnv, wantErr: "claude, codex, gemini, qwen, pi, acp"},
		{args: []string{"--agent", "openai", "--model", "m", "--base-url", "http://127.0.0.1:1/v1"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--agent", "gpt"}, getenv: noEnv, wantErr: `--agent "gpt": want one of none, demo`},
		{args: []string{"--agent", "demo", "--agent-bin", "x"}, getenv: noEnv, wantErr: "--agent-bin goes with --agent claude"},
		{args: []string{"--agent", "acp", "--", "/bin/agent", "--acp"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--agent", "acp"}, getenv: noEnv, wantErr: "--agent acp: give the agent's command"},
		{args: []string{"--agent", "acp", "--agent-bin", "x", "--", "y"}, getenv: noEnv, wantErr: "either after -- or with --agent-bin"},
		{args: []string{"--agent", "demo", "--", "x"}, getenv: noEnv, wantErr: "--agent-bin goes with --agent claude"},
		{args: []string{"--agent", "acp", "--", "-c", "hi"}, getenv: noEnv, wantErr: `after --: want the agent's command, got "-c"`},
		{args: []string{"--agent", "acp", "--", "cmd", "-c", "do it"}, getenv: noEnv, wantErr: "-c after -- goes to the agent's command cmd, not to todosh"},
		{args: []string{"--agent", "acp", "--", "cmd", "--resume"}, getenv: noEnv, wantErr: "--resume after -- goes to the agent's command cmd"},
		{args: []string{"--agent", "acp", "--", "codex-acp", "-c", "model=x"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--agent", "acp", "--", "gemini", "--acp", "--model", "m"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--agent", "acp:claude", "--approve", "maybe"}, getenv: noEnv, wantErr: `--approve "maybe": want ask, never or always`},
		{args: []string{"--agent", "claude", "--model", "x"}, getenv: noEnv, wantErr: "--model goes with --agent openai, not claude"},
		{args: []string{"--agent", "acp:claude", "--approve", "ask"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--", "/bin/agent", "--acp"}, getenv: noEnv, wantAgent: true},
		{args: []string{"--continue-delay", "-1s"}, getenv: noEnv, wantErr: "negative"},
		{args: []string{"--continue-delay", "soon"}, getenv: noEnv, wantErr: `--continue-delay "soon": want a duration`},
	}
	for _, tt := range tests {
		cfg, err := parseFlags(tt.args, &bytes.Buffer{}, tt.getenv, false)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseFlags(%q) error = %v, want one containing %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || (cfg.NewAgent != nil) != tt.wantAgent {
			t.Errorf("parseFlags(%q): agent set = %v, err = %v; want agent %v", tt.args, cfg.NewAgent != nil, err, tt.wantAgent)
		}
	}
}

// TestHelpIsGNUStyle: --help spells every flag as the usage line and the
// README do (--agent, and -c for the one-letter flag), with placeholders in
// capitals, and no flag in Go's single-dash spelling.
func TestHelpIsGNUStyle(t *testing.T) {
	var out bytes.Buffer
	if _, err := parseFlags([]string{"--help"}, &out, noEnv, false); !errors.Is(err, flag.ErrHelp) {
		t.Fatal(err)
	}
	help := out.String()
	for _, want := range []string{"\n  --agent NAME\n", "\n  -c CMD\n", "\n  --approve WHEN\n", "\n  --continue-delay DURATION\n", "(default 3s)", "\n  --resume\n"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q:\n%s", want, help)
		}
	}
	for _, line := range strings.Split(help, "\n") {
		if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") && !strings.HasPrefix(line, "  -c ") {
			t.Errorf("single-dash flag in --help: %q", line)
		}
	}
}

// TestFlagErrorsAreGNUStyle: the flag package's errors name flags as
// --help does.
func TestFlagErrorsAreGNUStyle(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "todosh: unknown flag --bogus (see todosh --help)\n"},
		// One dash and several letters are one-letter flags (GNU).
		{[]string{"-bogus"}, "todosh: unknown flag -b in -bogus (see todosh --help)\n"},
		{[]string{"-session", "x"}, "todosh: unknown flag -session: long flags take two dashes (--session) (see todosh --help)\n"},
		{[]string{"--session"}, "todosh: --session needs a value (see todosh --help)\n"},
		{[]string{"-c"}, "todosh: -c needs a value (see todosh --help)\n"},
		{[]string{"--c"}, "todosh: -c needs a value (see todosh --help)\n"},
		{[]string{"--continue-delay", "soon"}, "todosh: --continue-delay \"soon\": want a duration such as 30s or 2m (see todosh --help)\n"},
		{[]string{"--resume=maybe"}, "todosh: --resume \"maybe\": want true or false (see todosh --help)\n"},
		{[]string{"--quiet", "stray"}, "todosh: unexpected argument \"stray\": give commands and prompts with -c, or on stdin (see todosh --help)\n"},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		if code := run(tt.args, strings.NewReader(""), &out, &errOut, noEnv); code != repl.ExitUsage || errOut.String() != tt.want {
			t.Errorf("run(%q) = %d, stderr %q; want %d, %q", tt.args, code, errOut.String(), repl.ExitUsage, tt.want)
		}
	}
}

// TestDefaultAgent: with nothing configured, a terminal gets the demo (so
// `go run .` shows the whole loop) and a script gets no agent (a scripted
// model must not pass for real work); OPENAI_* picks openai in both.
func TestDefaultAgent(t *testing.T) {
	openai := func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return "http://127.0.0.1:9/v1"
		}
		return ""
	}
	tests := []struct {
		args     []string
		getenv   func(string) string
		terminal bool
		want     string
	}{
		{nil, noEnv, true, "demo"},
		{nil, noEnv, false, "none"},
		{[]string{"-c", "hello"}, noEnv, true, "none"},
		{[]string{"--output", "jsonl"}, noEnv, true, "none"},
		{nil, openai, true, "openai"},
		{nil, openai, false, "openai"},
		{[]string{"--agent", "none"}, noEnv, true, "none"},
	}
	for _, tt := range tests {
		cfg, err := parseFlags(tt.args, &bytes.Buffer{}, tt.getenv, tt.terminal)
		if err != nil || cfg.Backend == nil || cfg.Backend.Name != tt.want {
			t.Errorf("parseFlags(%q, terminal %v): %v, %v; want agent %s", tt.args, tt.terminal, cfg.Backend, err, tt.want)
		}
	}
}

func TestParseACPFlags(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		backend string
		cont    bool
		wantErr string
		noAgent bool
	}{
		{args: nil, backend: "none", cont: true, noAgent: true},
		{args: []string{"--agent", "acp:claude"}, backend: "acp:claude", cont: true},
		{args: []string{"--", "my-agent", "--acp"}, backend: "acp", cont: true},
		{args: []string{"--agent", "acp:gemini", "--", "gemini-nightly", "--acp"}, backend: "acp:gemini", cont: true},
		{args: []string{"--agent", "demo", "--no-continue"}, backend: "demo", cont: false},
		{args: []string{"--agent", "script:x.json"}, backend: "script", cont: true},
		{args: []string{"--agent", "nope"}, wantErr: `--agent "nope"`},
		{args: []string{"--agent", "acp:claude", "--model", "m"}, wantErr: "--model goes with --agent openai"},
		{args: []string{"--agent-bin", "x", "--", "y"}, wantErr: "not both"},
		{args: []string{"stray"}, wantErr: "unexpected argument"},
		{args: []string{"--lock-timeout", "0s"}, wantErr: "positive duration"},
		{args: []string{"--approve", "sometimes", "--agent", "acp:codex"}, wantErr: "want ask, never or always"},
		{args: []string{"--bogus"}, wantErr: "unknown flag --bogus"},
		{args: []string{"--agent", "openai", "--connect-timeout", "1s", "--idle-timeout", "1m"}, backend: "openai", cont: true},
		{args: []string{"--agent", "claude", "--connect-timeout", "1s"}, wantErr: "--connect-timeout goes with --agent openai"},
	} {
		cfg, err := parseACPFlags(tt.args, &bytes.Buffer{}, noEnv)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseACPFlags(%q) error = %v, want one containing %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || cfg.Backend == nil || cfg.Backend.Name != tt.backend || cfg.Continue != tt.cont || (cfg.NewAgent == nil) != tt.noAgent {
			t.Errorf("parseACPFlags(%q) = backend %v continue %v agent %v, %v; want %s, %v", tt.args, cfg.Backend, cfg.Continue, cfg.NewAgent != nil, err, tt.backend, tt.cont)
		}
	}
}

func TestRunACPExitStatuses(t *testing.T) {
	root := t.TempDir()
	getenv := func(k string) string {
		if k == "TODOSH_HOME" {
			return root
		}
		return ""
	}
	for _, tt := range []struct {
		args []string
		want int
		out  string
	}{
		{[]string{"acp", "--help"}, repl.ExitOK, "usage: todosh acp"},
		{[]string{"acp", "--agent", "nope"}, repl.ExitUsage, ""},
		{[]string{"acp", "stray"}, repl.ExitUsage, ""},
		// Stdin at its end: the editor is gone at once, todosh ends cleanly.
		{[]string{"acp", "--agent", "demo"}, repl.ExitOK, ""},
	} {
		var out, errOut bytes.Buffer
		got := run(tt.args, strings.NewReader(""), &out, &errOut, getenv)
		if got != tt.want || !strings.Contains(out.String(), tt.out) {
			t.Errorf("run(%q) = %d, stdout %q; want %d and %q (stderr %q)", tt.args, got, out.String(), tt.want, tt.out, errOut.String())
		}
		if tt.want == repl.ExitUsage && !strings.HasPrefix(errOut.String(), "todosh acp: ") {
			t.Errorf("run(%q) stderr = %q, want one line naming todosh acp", tt.args, errOut.String())
		}
	}
}

// TestAgentFlagsShared: every agent flag is defined once (agentflags.go),
// so the shell and `todosh acp` show it with the same placeholder and
// default, and read the same command line into the same agent and error.
func TestAgentFlagsShared(t *testing.T) {
	var shell, acp bytes.Buffer
	if _, err := parseFlags([]string{"--help"}, &shell, noEnv, false); !errors.Is(err, flag.ErrHelp) {
		t.Fatal(err)
	}
	if _, err := parseACPFlags([]string{"--help"}, &acp, noEnv); !errors.Is(err, flag.ErrHelp) {
		t.Fatal(err)
	}
	// flagHelp is a flag's entry in --help: its head line and the first
	// line of its text, where the default is given when it is not zero.
	flagHelp := func(help, name string) string {
		lines := strings.Split(help, "\n")
		for i, l := range lines {
			if l == "  --"+name || strings.HasPrefix(l, "  --"+name+" ") {
				return l + "\n" + lines[i+1]
			}
		}
		return ""
	}
	for _, f := range agentFlagTable {
		s, a := flagHelp(shell.String(), f.name), flagHelp(acp.String(), f.name)
		if s == "" || a == "" {
			t.Errorf("--%s: todosh --help %q, todosh acp --help %q; want it in both", f.name, s, a)
			continue
		}
		if f.shellNote == "" && f.acpNote == "" && s != a {
			t.Errorf("--%s differs: todosh --help %q, todosh acp --help %q", f.name, s, a)
		}
	}
	for _, args := range [][]string{
		{"--agent", "acp:codex", "--approve", "always", "--idle-limit", "0"},
		{"--agent", "openai", "--model", "m", "--connect-timeout", "2s", "--idle-timeout", "3s", "--require-evidence"},
		{"--agent", "acp", "--agent-bin", "x", "--agent-arg", "--acp", "--lock-timeout", "5s"},
		{"--", "my-agent", "--acp"},
		{"--agent", "claude", "--approve", "never"},
		{"--agent", "codex", "--idle-limit", "-1s"},
		{"--agent", "acp:claude", "--approve", "maybe"},
		{"--agent", "demo", "--lock-timeout", "0s"},
		{"--agent", "demo", "--no-continue"},
	} {
		cfg, err := parseFlags(args, &bytes.Buffer{}, noEnv, false)
		acfg, aerr := parseACPFlags(args, &bytes.Buffer{}, noEnv)
		if fmt.Sprint(err) != fmt.Sprint(aerr) {
			t.Errorf("%q: todosh says %v, todosh acp says %v", args, err, aerr)
			continue
		}
		if err != nil {
			continue
		}
		if cfg.Backend.Name != acfg.Backend.Name || cfg.NoContinue == acfg.Continue || cfg.LockTimeout != acfg.LockTimeout {
			t.Errorf("%q: todosh %s (no-continue %v, lock %s), todosh acp %s (continue %v, lock %s)", args,
				cfg.Backend.Name, cfg.NoContinue, cfg.LockTimeout, acfg.Backend.Name, acfg.Continue, acfg.LockTimeout)
		}
	}
}

// TestHelpListsSubcommandUsage: every usage line a subcommand's own --help
// starts with is in the shell's --help (todosh hooks install's
// --budget-tokens was missing there).
func TestHelpListsSubcommandUsage(t *testing.T) {
	var shell bytes.Buffer
	if _, err := parseFlags([]string{"--help"}, &shell, noEnv, false); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: %v", err)
	}
	checked := 0
	for _, c := range subcommands {
		var out, errOut bytes.Buffer
		c.run([]string{"--help"}, strings.NewReader(""), &out, &errOut, noEnv)
		lines := strings.Split(out.String(), "\n")
		if !strings.HasPrefix(lines[0], "usage: todosh "+c.name+" ") {
			continue // no usage lines of its own to compare
		}
		for i, l := range lines {
			l = strings.TrimSpace(strings.TrimPrefix(l, "usage:"))
			if i > 0 && !strings.HasPrefix(l, "todosh "+c.name+" ") {
				break
			}
			checked++
			if !strings.Contains(shell.String(), "       "+l) {
				t.Errorf("todosh %s --help has %q; todosh --help does not:\n%s", c.name, l, shell.String())
			}
		}
	}
	if checked < 5 {
		t.Errorf("compared %d usage lines; want the hooks, mcp and acp ones at least", checked)
	}
}
