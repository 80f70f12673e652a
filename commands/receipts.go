package commands

import (
	"fmt"

	"github.com/todosh/todosh/todostore"
)

// work is what the session's work log shows of the agent's work (issue
// 26), for lists that say which completed items have a receipt; nil when
// the log cannot be read, which is said on Err and shows lists without
// receipts. Bad lines are skipped and said once.
func (x *call) work() *todostore.Summary {
	log, err := x.env.Store.Work(x.env.SessionID)
	if err != nil {
		if x.env.Err != nil {
			fmt.Fprintf(x.env.Err, "%s: receipts not shown: %s\n", x.name, oneLine(err.Error()))
		}
		return nil
	}
	sum := log.Summarize()
	if sum.Bad > 0 && x.env.Err != nil {
		fmt.Fprintf(x.env.Err, "%s: %s of the work log skipped (not a tool call or usage todosh wrote)\n", x.name, todostore.Plural(sum.Bad, "bad line"))
	}
	return &sum
}
