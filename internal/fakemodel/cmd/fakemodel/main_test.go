package main

import (
	"strings"
	"testing"
)

func TestRunRejectsBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", "busy"}, `--scenario: unknown scenario "busy"`},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--addr", "127.0.0.1:notaport"}, "--addr:"},
		{[]string{"--log", "/nonexistent-dir/x.jsonl"}, "--log:"},
	}
	for _, tt := range tests {
		err := run(tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%q) = %v, want an error containing %q", tt.args, err, tt.want)
		}
	}
}
