package main

// Every command line of todosh is parsed by spf13/pflag (GNU style:
// --name VALUE, --name=VALUE, -c VALUE, -- ends the flags), imported
// under the name flag as pflag itself recommends: its FlagSet has the
// standard flag package's methods (StringVar, DurationVar, Func...), so
// a row of agentFlagTable or a subcommand's flags file reads as it did.

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/todosh/todosh/textwidth"

	flag "github.com/spf13/pflag"

	"github.com/todosh/todosh/repl"
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
// prints nothing itself: --help and errors are printed by the caller
// (printFlags, flagError). Flags end at the first argument that is not
// one, as they did with the flag package: `todosh acp -- CMD --x` gives
// --x to CMD.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SetInterspersed(false)
	return fs
}

// shortFlag defines the one-letter flag name, which pflag spells both -c
// and --c.
func shortFlag(fs *flag.FlagSet, name, usage string, fn func(string) error) {
	fs.FuncP(name, name, usage, fn)
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
		fmt.Fprintf(stderr, "%s: %v (see %s --help)\n", fs.Name(), flagError(fs, err), fs.Name())
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
		for _, line := range textwidth.Wrap(usage, 72) {
			fmt.Fprintln(w, "        "+line)
		}
	})
}

// isZeroDefault reports whether f's default says nothing worth printing.
func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "false", "0", "0s", "[]":
		return true
	}
	return false
}

// valueWants says, by a flag's value type, what a bad value should have
// been; a type not listed gives the parser's own reason.
var valueWants = map[string]string{
	"bool":     "want true or false",
	"duration": "want a duration such as 30s or 2m",
	"int":      "want a whole number",
}

// flagError is pflag's error in todosh's words, one line naming the flag
// as --help does: "unknown flag --x", "--session needs a value",
// `--continue-delay "soon": want a duration such as 30s or 2m`. A flag
// given with one dash and several letters (-session) is read as -s -e ...
// by GNU rules; when a long flag has that name, the error says so.
func flagError(fs *flag.FlagSet, err error) error {
	var (
		notExist *flag.NotExistError
		noValue  *flag.ValueRequiredError
		invalid  *flag.InvalidValueError
	)
	switch {
	case errors.As(err, &notExist):
		group := notExist.GetSpecifiedShortnames()
		if group == "" {
			return fmt.Errorf("unknown flag --%s", notExist.GetSpecifiedName())
		}
		if long, _, _ := strings.Cut(group, "="); len(long) > 1 && fs.Lookup(long) != nil {
			return fmt.Errorf("unknown flag -%s: long flags take two dashes (--%s)", long, long)
		}
		return fmt.Errorf("unknown flag -%s in -%s", notExist.GetSpecifiedName(), group)
	case errors.As(err, &noValue):
		return fmt.Errorf("%s needs a value", flagName(noValue.GetFlag().Name))
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		reason, ok := valueWants[f.Value.Type()]
		if !ok {
			reason = errors.Unwrap(err).Error()
		}
		return fmt.Errorf("%s %q: %s", flagName(f.Name), invalid.GetValue(), reason)
	}
	return err
}
