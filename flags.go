package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/todosh/todosh/repl"
	"github.com/todosh/todosh/todostore"
)

// flagName is how a flag is spelled for people: GNU style, --name, except
// the one-letter -c.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// newFlagSet is the flag set of todosh or of one of its subcommands. It
// prints nothing itself: --help and errors are printed by the caller, in
// GNU spelling (printFlags, gnuFlagError).
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseSubcommand parses the flags of subcommand name, which takes no
// arguments: --help prints usage and the flags on stdout; a bad flag or an
// argument is one line on stderr. ok false means the caller returns exit.
func parseSubcommand(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (exit int, ok bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		printFlags(stdout, fs)
		return repl.ExitOK, false
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v (see %s --help)\n", fs.Name(), gnuFlagError(err), fs.Name())
		return repl.ExitUsage, false
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "%s: unexpected argument %q (see %s --help)\n", fs.Name(), strings.Join(fs.Args(), " "), fs.Name())
		return repl.ExitUsage, false
	}
	return 0, true
}

// printFlags writes the flags of fs as --help shows them: GNU spelling, a
// placeholder in capitals, the usage wrapped under it, and the default
// when it is not the zero value.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		placeholder, usage := flag.UnquoteUsage(f)
		head := "  " + flagName(f.Name)
		if placeholder != "" {
			head += " " + strings.ToUpper(placeholder)
		}
		if !isZeroDefault(f) && !strings.Contains(usage, "(default") {
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintln(w, head)
		for _, line := range todostore.Wrap(usage, 72) {
			fmt.Fprintln(w, "        "+line)
		}
	})
}

// isZeroDefault reports whether f's default says nothing worth printing.
func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "false", "0", "0s":
		return true
	}
	return false
}

// Go's flag package names flags with one dash in its errors; these turn
// its three messages into the spelling the usage line and --help use.
var (
	errUndefined = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)
	errNoValue   = regexp.MustCompile(`^flag needs an argument: -+(.+)$`)
	errBadValue  = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-+([^:]+): (.*)$`)
)

// gnuFlagError rewrites an error of Go's flag package in GNU spelling;
// any other error is returned as it is.
func gnuFlagError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if m := errUndefined.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("unknown flag %s", flagName(m[1]))
	}
	if m := errNoValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s needs a value", flagName(m[1]))
	}
	if m := errBadValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s %s: %s", flagName(m[2]), m[1], m[3])
	}
	return err
}
