package acpserve

import (
	"context"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/turnstep"
)

// sessionBudget is a session's prompt budget as /todo budget sees it
// (commands.Budget): the policy's, which --budget-tokens and
// --budget-time set.
type sessionBudget struct {
	policy *continuation.Policy
	// resumes: a raise came after the last prompt stopped at its
	// budget, so the /todo prompt goes on with the same list.
	resumes bool
}

// BudgetLines is what the prompt spent and what is left.
func (b *sessionBudget) BudgetLines() string { return b.policy.BudgetLines() }

// RaiseBudget raises the current prompt's budget.
func (b *sessionBudget) RaiseBudget(tokens int64, d time.Duration) (bool, error) {
	if err := b.policy.Raise(continuation.Budget{Tokens: tokens, Time: d}); err != nil {
		return false, err
	}
	b.resumes = b.policy.StoppedAtBudget()
	return b.resumes, nil
}

// resume continues the list of a prompt that stopped at its budget, in
// the /todo budget +N prompt that raised it: the policy's next
// continuation, then on as a prompt goes.
func (ss *session) resume(ctx context.Context) (acp.PromptResponse, error) {
	sess, err := ss.store.LoadOrNew(ss.id)
	if err != nil {
		return acp.PromptResponse{}, internalError("continuation not sent: " + err.Error())
	}
	ss.applySettings()
	dec := ss.policy.Resume(sess.Todos, ss.tools())
	if dec.Line != "" {
		ss.say("\n\ntodosh: " + dec.Line + "\n\n") // a paragraph of its own, as run's
	}
	if !dec.Continue {
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	}
	step := turnstep.Step{Agent: ss.agent, Session: ss.asess, Policy: ss.policy, Tools: ss.tools, Cwd: ss.cwd}
	return ss.run(ctx, step, agent.Turn{Prompt: dec.Prompt, Continuation: true})
}
