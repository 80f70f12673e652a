package main

import (
	"errors"
	"fmt"
	"regexp"
	"testing"
)

// The regular expressions gnuFlagError replaced (they were compiled at
// every start): the oracle of FuzzGNUFlagError.
var (
	oldUndefined = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)
	oldNoValue   = regexp.MustCompile(`^flag needs an argument: -+(.+)$`)
	oldBadValue  = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-+([^:]+): (.*)$`)
)

func oldGNUFlagError(err error) error {
	msg := err.Error()
	if m := oldUndefined.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("unknown flag %s", flagName(m[1]))
	}
	if m := oldNoValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s needs a value", flagName(m[1]))
	}
	if m := oldBadValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s %s: %s", flagName(m[2]), m[1], m[3])
	}
	return err
}

// FuzzGNUFlagError: the flag package's messages in GNU spelling, as the
// regular expressions had them, for every message the flag package can
// write and any other.
func FuzzGNUFlagError(f *testing.F) {
	for _, s := range []string{
		"flag provided but not defined: -bogus", "flag provided but not defined: --x-y",
		"flag needs an argument: -c", "flag needs an argument: --session",
		`invalid value "soon" for flag -continue-delay: parse error`,
		`invalid boolean value "maybe" for -resume: parse error`,
		`invalid value "a\"b\\" for flag --x: it: has colons`,
		`invalid value "x" for flag -: y`, "flag needs an argument: --", `invalid value "\\q" for flag --: y`, "invalid value \"x\" for -y: z\nw", `invalid value "x" for flag -a:b: c`, "other error",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		err := errors.New(msg)
		if got, want := gnuFlagError(err).Error(), oldGNUFlagError(err).Error(); got != want {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	})
}
