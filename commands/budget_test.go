package commands

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseRaise(t *testing.T) {
	for _, tc := range []struct {
		arg    string
		tokens int64
		d      time.Duration
		ok     bool
	}{
		{"+5000", 5000, 0, true},
		{"+10,000", 10000, 0, true},
		{"+1_000_000", 1000000, 0, true},
		{"+10m", 0, 10 * time.Minute, true},
		{"+1h30m", 0, 90 * time.Minute, true},
		{"5000", 0, 0, false},
		{"+", 0, 0, false},
		{"+0", 0, 0, false},
		{"+-5", 0, 0, false},
		{"++5", 0, 0, false},
		{"+,5", 0, 0, false},
		{"+5,", 0, 0, false},
		{"+0s", 0, 0, false},
		{"+5m-1s", 0, 0, false},
		{"+99999999999999999999", 0, 0, false},
		{"+ten", 0, 0, false},
	} {
		tokens, d, err := ParseRaise(tc.arg)
		if (err == nil) != tc.ok || tokens != tc.tokens || d != tc.d {
			t.Errorf("ParseRaise(%q) = %d, %s, %v", tc.arg, tokens, d, err)
		}
		if err != nil && (!strings.Contains(err.Error(), "give +N tokens") || strings.ContainsAny(err.Error(), "\n")) {
			t.Errorf("ParseRaise(%q) error %q", tc.arg, err)
		}
	}
}

// FuzzParseRaise: an argument is tokens or a duration, above zero, never
// both, and an error is one line.
func FuzzParseRaise(f *testing.F) {
	for _, s := range []string{"+5000", "+10,000", "+10m", "+1h30m", "+", "+-5", "+1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		tokens, d, err := ParseRaise(arg)
		if err != nil {
			if tokens != 0 || d != 0 || strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("%q: %d %s and error %q", arg, tokens, d, err)
			}
			return
		}
		if (tokens > 0) == (d > 0) || tokens < 0 || d < 0 || !strings.HasPrefix(arg, "+") {
			t.Fatalf("%q: %d tokens, %s", arg, tokens, d)
		}
	})
}

// fakeBudget is a Budget that records raises.
type fakeBudget struct {
	tokens  int64
	d       time.Duration
	resumes bool
	err     error
}

func (b *fakeBudget) BudgetLines() string { return "tokens: 10 of 20 spent, 10 left\n" }
func (b *fakeBudget) RaiseBudget(tokens int64, d time.Duration) (bool, error) {
	if b.err != nil {
		return false, b.err
	}
	b.tokens, b.d = b.tokens+tokens, b.d+d
	return b.resumes, nil
}

func TestTodoBudget(t *testing.T) {
	r := NewRegistry()
	env, out := newTestEnv(t)
	if err := r.Run(env, "/todo budget"); err == nil || !strings.Contains(err.Error(), "no agent is connected") {
		t.Errorf("without an agent: %v", err)
	}
	b := &fakeBudget{resumes: true}
	env.Budget = b
	out.Reset()
	if err := r.Run(env, "/todo budget"); err != nil || out.String() != "tokens: 10 of 20 spent, 10 left\n" {
		t.Errorf("show: %q %v", out, err)
	}
	out.Reset()
	if err := r.Run(env, "/todo budget +5,000"); err != nil || b.tokens != 5000 || !strings.Contains(out.String(), "continuing the same list") {
		t.Errorf("raise: %q %v %+v", out, err, b)
	}
	if err := r.Run(env, "/todo budget +5m extra"); err == nil {
		t.Error("an extra word taken")
	}
	if err := r.Run(env, "/todo budget lots"); err == nil || !strings.HasPrefix(err.Error(), "/todo budget: ") {
		t.Errorf("a bad raise: %v", err)
	}
	b.err = errors.New("there is no time budget to raise (start todosh with --budget-time DURATION)")
	if err := r.Run(env, "/todo budget +5m"); err == nil || !strings.Contains(err.Error(), "--budget-time") {
		t.Errorf("refused raise: %v", err)
	}
}
