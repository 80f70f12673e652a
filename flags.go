package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
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

// gnuFlagError rewrites an error of Go's flag package in GNU spelling
// (the package names flags with one dash in its three messages); any
// other error is returned as it is. Plain string code, not regular
// expressions: compiling them cost every start of todosh.
func gnuFlagError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok && !strings.Contains(rest, "\n") {
		if name, ok := dashName(rest, false); ok {
			return fmt.Errorf("unknown flag %s", flagName(name))
		}
	}
	if rest, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok && !strings.Contains(rest, "\n") {
		if name, ok := dashName(rest, false); ok {
			return fmt.Errorf("%s needs a value", flagName(name))
		}
	}
	if name, value, reason, ok := badValue(msg); ok {
		return fmt.Errorf("%s %s: %s", flagName(name), value, reason)
	}
	return err
}

// dashName is s, a flag's name after one or more dashes, without them:
// at least one character is left ("--" is the flag "-"), and when
// colonEnds the name cannot start with the colon that ends it ("--: x" is
// the flag "-" too), as the expressions `-+(.+)$` and `-+([^:]+):` had it.
func dashName(s string, colonEnds bool) (string, bool) {
	k := len(s) - len(strings.TrimLeft(s, "-"))
	if k < len(s) && !(colonEnds && s[k] == ':') {
		return s[k:], k > 0
	}
	return s[max(k-1, 0):], k >= 2
}

// badValue splits the flag package's `invalid [boolean ]value "V" for
// [flag ]-NAME: REASON` into the flag's name, the quoted value and the
// reason.
func badValue(msg string) (name, value, reason string, ok bool) {
	rest, found := strings.CutPrefix(msg, "invalid value ")
	if !found {
		if rest, found = strings.CutPrefix(msg, "invalid boolean value "); !found {
			return "", "", "", false
		}
	}
	if !strings.HasPrefix(rest, `"`) {
		return "", "", "", false
	}
	end := 1 // the closing quote: backslash escapes any one character but a newline
	for ; end < len(rest) && rest[end] != '"'; end++ {
		if rest[end] == '\\' {
			if end++; end < len(rest) && rest[end] == '\n' {
				return "", "", "", false
			}
		}
	}
	if end >= len(rest) {
		return "", "", "", false
	}
	value, rest = rest[:end+1], rest[end+1:]
	if rest, found = strings.CutPrefix(rest, " for "); !found {
		return "", "", "", false
	}
	if after, found := strings.CutPrefix(rest, "flag "); found && strings.HasPrefix(after, "-") {
		rest = after
	}
	if rest, found = dashName(rest, true); !found {
		return "", "", "", false
	}
	name, reason, found = strings.Cut(rest, ": ")
	if !found || name == "" || strings.Contains(name, ":") || strings.Contains(reason, "\n") {
		return "", "", "", false
	}
	return name, value, reason, true
}
