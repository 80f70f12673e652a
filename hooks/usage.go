package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/clis"
)

// Token budgets in the stop gate (`todosh hooks install AGENT
// --budget-tokens N`): the stop entry runs `todosh hook AGENT stop
// --budget-tokens N`, and the gate reads what the person's prompt has
// spent from the agent's own transcript, which its Stop hook names
// (transcript_path). An agent whose transcript todosh cannot read for
// usage (the row's usage is nil) gets no token budget.

// BudgetFlag is the stop command's flag that carries the budget.
const BudgetFlag = "--budget-tokens"

// transcriptUsage reads what the agent's transcript says the prompt
// promptID spent; ok is false when the transcript does not show that
// prompt. notices are counts it refused.
type transcriptUsage func(transcript []byte, promptID string) (u agent.Usage, notices []string, ok bool)

// maxTranscript bounds what the gate reads of a transcript: its end, where
// the prompt that just stopped is.
const maxTranscript = 64 << 20

// ReportsUsage reports whether the gate can read the agent's spending, so
// --budget-tokens can hold it.
func (a Agent) ReportsUsage() bool { return a.usage != nil }

// WithBudget is a with its stop entry carrying a token budget of n (0:
// none), for Install.
func (a Agent) WithBudget(n int64) (Agent, error) {
	switch {
	case n < 0 || n > agent.MaxUsage:
		return a, fmt.Errorf("%s %d: give a count of tokens such as 100000", BudgetFlag, n)
	case n > 0 && !a.ReportsUsage():
		return a, fmt.Errorf("%s: %s's hooks give todosh no token usage, so its stop gate cannot hold a token budget (claude's can)", BudgetFlag, a.Title)
	}
	a.budget = n
	return a, nil
}

// stopArgs are the arguments after `hook AGENT KIND` of kind's entry.
func (a Agent) stopArgs(k Kind) string {
	if k != KindStop || a.budget <= 0 {
		return ""
	}
	return " " + BudgetFlag + " " + strconv.FormatInt(a.budget, 10)
}

// ParseHookArgs reads `todosh hook`'s arguments: AGENT EVENT, and for the
// stop event the budget flag.
func ParseHookArgs(args []string) (agentName, kind string, budget int64, err error) {
	switch {
	case len(args) == 2:
		return args[0], args[1], 0, nil
	case len(args) == 4 && args[1] == string(KindStop) && args[2] == BudgetFlag:
		n, err := strconv.ParseInt(args[3], 10, 64)
		if err != nil || n <= 0 || n > agent.MaxUsage {
			return "", "", 0, fmt.Errorf("%s %q: want a count of tokens", BudgetFlag, args[3])
		}
		return args[0], args[1], n, nil
	}
	return "", "", 0, errors.New("want AGENT EVENT [--budget-tokens N]")
}

// claudeTranscriptUsage reads Claude Code's transcript: a JSON line per
// entry, the person's prompt a user line with its promptId (which the
// Stop hook gives as prompt_id, and the tool results and "Stop hook
// feedback" of that prompt carry too), each model message assistant
// lines sharing its id and its usage. What the prompt spent is the usage
// of the assistant lines from its first line to the first line of
// another prompt, counted as todosh
// counts Claude's stream (clis.ClaudeParser: a message once, cache
// included). Checked with Claude Code 2.1.332.
func claudeTranscriptUsage(transcript []byte, promptID string) (agent.Usage, []string, bool) {
	if promptID == "" {
		return agent.Usage{}, nil, false
	}
	key := []byte(`"promptId":"` + promptID + `"`)
	start := bytes.Index(transcript, key)
	if start < 0 {
		return agent.Usage{}, nil, false
	}
	// The prompt ends where a line of another prompt begins.
	end := len(transcript)
	for i := start; i < len(transcript); {
		nl := bytes.IndexByte(transcript[i:], '\n')
		if nl < 0 {
			break
		}
		i += nl + 1
		line := transcript[i:]
		if n := bytes.IndexByte(line, '\n'); n >= 0 {
			line = line[:n]
		}
		if bytes.Contains(line, []byte(`"promptId":"`)) && !bytes.Contains(line, key) {
			end = i
			break
		}
	}
	var u agent.Usage
	var notices []string
	p := &clis.ClaudeParser{}
	err := clis.ParseStream(bytes.NewReader(transcript[start:end]), "claude transcript", p, func(up clis.Update) {
		switch up.Kind {
		case clis.UpdateUsage:
			u.Input += up.Usage.Input
			u.Output += up.Usage.Output
		case clis.UpdateNotice:
			if bytes.Contains([]byte(up.Text), []byte("ignored")) {
				notices = append(notices, up.Text)
			}
		}
	})
	return u, notices, err == nil
}

// spent is what the person's prompt has spent, from the transcript, for
// the stop gate's budget; 0 with a notice when it cannot be read (the
// gate then holds no budget this time, and says why).
func (h *hook) spent() (int64, []string) {
	if h.cfg.BudgetTokens <= 0 || h.a.usage == nil {
		return 0, nil
	}
	if h.in.TranscriptPath == "" {
		return 0, []string{"token budget not checked: the hook's input names no transcript_path"}
	}
	data, err := clis.ReadTail(h.in.TranscriptPath, maxTranscript)
	if err != nil {
		return 0, []string{"token budget not checked: " + err.Error()}
	}
	u, notices, ok := h.a.usage(data, h.in.PromptID)
	if !ok {
		return 0, append(notices, "token budget not checked: the transcript does not show this prompt ("+h.in.PromptID+")")
	}
	return u.Total(), notices
}
