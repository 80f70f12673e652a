package commands

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Budget is the prompt's budget as the shell keeps it (--budget-tokens,
// --budget-time, in its continuation policy), for /todo budget.
type Budget interface {
	// BudgetLines says, a line each for tokens and time, what the prompt
	// spent, of what, and what is left.
	BudgetLines() string
	// RaiseBudget adds tokens or time to the current prompt's budget;
	// resumes says the prompt had stopped at its budget and the shell
	// continues it once the command is done.
	RaiseBudget(tokens int64, d time.Duration) (resumes bool, err error)
}

// runBudget implements /todo budget [+N|+DURATION].
func runBudget(x *call) error {
	b := x.env.Budget
	if b == nil {
		return errors.New("no agent is connected: a budget is what an agent's turns may spend (start todosh with --agent and --budget-tokens or --budget-time)")
	}
	w, ok, err := x.args.Next()
	if err != nil {
		return err
	}
	if !ok {
		return x.print(b.BudgetLines())
	}
	if err := x.noMoreArgs(); err != nil {
		return err
	}
	tokens, d, err := ParseRaise(w.Value)
	if err != nil {
		return err
	}
	resumes, err := b.RaiseBudget(tokens, d)
	if err != nil {
		return err
	}
	note := "the next prompt starts from the flags' budget again"
	if resumes {
		note = "continuing the same list"
	}
	return x.print("Raised the budget of this prompt (" + note + ")\n" + b.BudgetLines())
}

// ParseRaise reads /todo budget's argument: +N tokens (digits, with
// commas or underscores between them: +10,000) or +DURATION (+10m,
// +1h30m).
func ParseRaise(arg string) (tokens int64, d time.Duration, err error) {
	bad := fmt.Errorf("%q: give +N tokens (+5000) or +DURATION (+10m)", oneLine(arg))
	rest, ok := strings.CutPrefix(arg, "+")
	if !ok || rest == "" {
		return 0, 0, bad
	}
	if digits := strings.NewReplacer(",", "", "_", "").Replace(rest); strings.Trim(digits, "0123456789") == "" && digits != "" &&
		rest[0] >= '0' && rest[0] <= '9' && rest[len(rest)-1] >= '0' && rest[len(rest)-1] <= '9' {
		n, err := strconv.ParseInt(digits, 10, 64)
		if err != nil || n <= 0 {
			return 0, 0, bad
		}
		return n, 0, nil
	}
	d, err = time.ParseDuration(rest)
	if err != nil || d <= 0 || strings.ContainsAny(rest, "+-") {
		return 0, 0, bad
	}
	return 0, d, nil
}
