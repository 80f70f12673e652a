package main

import (
	"bytes"
	"errors"
	"flag"
	"reflect"
	"strings"
	"testing"

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
		{args: []string{"-session=a.b_c-1"}, want: with(func(c *repl.Config) { c.SessionID = "a.b_c-1" })},
		{args: []string{"--resume"}, want: with(func(c *repl.Config) { c.Resume = true })},
		{args: []string{"-c", "/todo add a", "-c", "/todo show"}, want: with(func(c *repl.Config) { c.Commands = []string{"/todo add a", "/todo show"} })},
		{args: []string{"--session", "../x"}, wantErr: "invalid session id"},
		{args: []string{"--session", "a/b"}, wantErr: "invalid session id"},
		{args: []string{"--session", ".."}, wantErr: "invalid session id"},
		{args: []string{"--session", strings.Repeat("x", 101)}, wantErr: "invalid session id"},
		{args: []string{"--session", "a", "--resume"}, wantErr: "do not go together"},
		{args: []string{"--nope"}, wantErr: "not defined"},
		{args: []string{"-c"}, wantErr: "needs an argument"},
		{args: []string{"hello"}, wantErr: "unexpected argument"},
	}
	for _, tt := range tests {
		got, err := parseFlags(tt.args, &bytes.Buffer{})
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
	_, err := parseFlags([]string{"--help"}, &out)
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "usage: todosh") || !strings.Contains(out.String(), "-session") {
		t.Errorf("--help: err %v, printed %q", err, out.String())
	}
}
