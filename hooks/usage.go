package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/clis"
	"github.com/todosh/todosh/todostore"
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
// promptID spent, message by message in the transcript's order; ok is
// false when the transcript does not show that prompt. notices are counts
// it refused.
type transcriptUsage func(transcript []byte, promptID string) (msgs []messageUsage, notices []string, ok bool)

// messageUsage is what one model message spent, by the transcript: its
// id, when it was written, its tokens.
type messageUsage struct {
	ID string
	At time.Time
	agent.Usage
}

// total is what msgs spent together.
func total(msgs []messageUsage) agent.Usage {
	var u agent.Usage
	for _, m := range msgs {
		u.Input += m.Input
		u.Output += m.Output
	}
	return u
}

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
// included), each message's with its id and its first line's timestamp.
// Checked with Claude Code 2.1.332.
func claudeTranscriptUsage(transcript []byte, promptID string) ([]messageUsage, []string, bool) {
	part, ok := promptPart(transcript, promptID)
	if !ok {
		return nil, nil, false
	}
	var notices []string
	p := &messageLines{p: &clis.ClaudeParser{}}
	err := clis.ParseStream(bytes.NewReader(part), "claude transcript", p, func(up clis.Update) {
		switch up.Kind {
		case clis.UpdateUsage:
			p.add(*up.Usage)
		case clis.UpdateNotice:
			if up.Meter {
				notices = append(notices, up.Text)
			}
		}
	})
	if err != nil {
		return nil, notices, false
	}
	return p.msgs, notices, true
}

// promptPart is the lines of the transcript from the first line of prompt
// promptID to the first line of another prompt.
func promptPart(transcript []byte, promptID string) ([]byte, bool) {
	if promptID == "" {
		return nil, false
	}
	key := []byte(`"promptId":"` + promptID + `"`)
	start := bytes.Index(transcript, key)
	if start < 0 {
		return nil, false
	}
	if nl := bytes.LastIndexByte(transcript[:start], '\n'); nl >= 0 {
		start = nl + 1
	} else {
		start = 0
	}
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
	return transcript[start:end], true
}

// messageLines passes a transcript's lines to a Claude parser, noting
// which message each line is of, so the usage the parser reports for a
// line goes to that message.
type messageLines struct {
	p    *clis.ClaudeParser
	id   string
	at   time.Time
	msgs []messageUsage
	// index is each message's place in msgs, by id.
	index map[string]int
}

func (m *messageLines) Line(line []byte, emit func(clis.Update)) error {
	var head struct {
		Timestamp time.Time `json:"timestamp"`
		Message   struct {
			ID string `json:"id"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &head) != nil {
		head.Message.ID, head.Timestamp = "", time.Time{}
	}
	m.id, m.at = head.Message.ID, head.Timestamp
	return m.p.Line(line, emit)
}

// add adds u to the message of the line being read; a line without an id
// is a message of its own.
func (m *messageLines) add(u agent.Usage) {
	if i, ok := m.index[m.id]; ok && m.id != "" {
		m.msgs[i].Input += u.Input
		m.msgs[i].Output += u.Output
		return
	}
	if m.index == nil {
		m.index = map[string]int{}
	}
	m.index[m.id] = len(m.msgs)
	m.msgs = append(m.msgs, messageUsage{ID: m.id, At: m.at, Usage: u})
}

// Claude Code queues transcript lines and writes them every 100 ms
// (FLUSH_INTERVAL_MS in its bundled code, 2.1.332), so its Stop hook can
// run before the last assistant message is in the file: the gate counted
// 360 of a prompt's 480 tokens. The Stop hook's input has that message's
// text (last_assistant_message), so the gate reads the transcript again
// until the prompt shows the message after its last user line (a tool
// result or the gate's own feedback), for at most transcriptWait, when a
// token budget is set.
const (
	transcriptWait = 2 * time.Second
	transcriptPoll = 20 * time.Millisecond
)

// promptUsage is what the person's prompt has spent, message by message,
// from the transcript, once it shows the last message (see above). ok is
// false, with a notice, when the transcript cannot be read for it.
func (h *hook) promptUsage() (msgs []messageUsage, notices []string, ok bool) {
	if h.a.usage == nil {
		return nil, nil, false
	}
	if h.in.TranscriptPath == "" {
		return nil, []string{"token usage not read: the hook's input names no transcript_path"}, false
	}
	sleep := h.cfg.Sleep
	if sleep == nil {
		sleep = time.Sleep
	}
	for waited := time.Duration(0); ; waited += transcriptPoll {
		data, err := clis.ReadTail(h.in.TranscriptPath, maxTranscript)
		if err != nil {
			return nil, []string{"token usage not read: " + err.Error()}, false
		}
		// Only a budget needs the last message now: without one the
		// ledger takes what is there, and a stop never waits (the wait,
		// up to transcriptWait at every stop whose reply the transcript
		// does not spell as expected, cost a session 2 s a stop), nor
		// looks for the prompt's part twice.
		if h.cfg.BudgetTokens <= 0 {
			return h.a.usage(data, h.in.PromptID)
		}
		if part, shown := promptPart(data, h.in.PromptID); shown && showsReply(part, h.in.Reply()) {
			return h.a.usage(data, h.in.PromptID)
		}
		if waited >= transcriptWait {
			msgs, notices, ok = h.a.usage(data, h.in.PromptID)
			if !ok {
				return msgs, append(notices, "token usage not read: the transcript does not show this prompt ("+h.in.PromptID+")"), false
			}
			return msgs, append(notices, fmt.Sprintf("token usage: the transcript did not show the last message within %v, counted without it", transcriptWait)), true
		}
		sleep(transcriptPoll)
	}
}

// showsReply reports whether a prompt's part of a transcript shows the
// reply the agent stopped with, in an assistant line after its last user
// line: the last line of its text, as JSON writes it. An empty reply
// (a stop after a tool call) is taken as shown.
func showsReply(part []byte, reply string) bool {
	reply = strings.TrimSpace(reply)
	if i := strings.LastIndexByte(reply, '\n'); i >= 0 {
		reply = strings.TrimSpace(reply[i+1:])
	}
	if reply == "" {
		return true
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as JavaScript's JSON.stringify writes it
	if enc.Encode(reply) != nil {
		return true
	}
	text := bytes.TrimSuffix(bytes.TrimSpace(buf.Bytes()), []byte(`"`))
	text = bytes.TrimPrefix(text, []byte(`"`))
	if i := bytes.LastIndex(part, []byte(`"type":"user"`)); i >= 0 {
		part = part[i:]
	}
	return bytes.Contains(part, text)
}

// spent is what msgs add up to, for the stop gate's budget; 0 with a
// notice when the prompt's usage could not be read (the gate then holds
// no budget this time, and says why).
func (h *hook) spent(msgs []messageUsage, read bool) (int64, []string) {
	if h.cfg.BudgetTokens <= 0 || h.a.usage == nil {
		return 0, nil
	}
	if !read {
		return 0, []string{"token budget not checked: the prompt's usage could not be read"}
	}
	return total(msgs).Total(), nil
}

// recordUsage records in the session's work log each message of msgs it
// does not hold yet (by its id: a stop after a continuation reads the
// prompt's earlier messages again), attributed to the item in progress
// when the message was written, by the history: so /todo cost shows what
// a hooks session spent.
func (h *hook) recordUsage(msgs []messageUsage) error {
	if len(msgs) == 0 {
		return nil
	}
	log, err := h.cfg.Store.Work(h.id)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, l := range log.Lines {
		if l.Msg != "" {
			seen[l.Msg] = true
		}
	}
	// The history is read whole, so only once there is a message to
	// record: a stop whose messages an earlier stop recorded reads none.
	var hist []todostore.HistoryLine
	histRead := false
	for _, m := range msgs {
		if m.ID == "" || seen[m.ID] || (m.Input == 0 && m.Output == 0) {
			continue
		}
		seen[m.ID] = true
		if !histRead {
			// A damaged history still gives the lines it could read, which
			// attribute the tokens as the ledger and turnstep do.
			var damaged *todostore.HistoryError
			if hist, err = h.cfg.Store.History(h.id); err != nil && !errors.As(err, &damaged) {
				return err
			}
			histRead = true
		}
		line := todostore.WorkLine{In: m.Input, Out: m.Output, Msg: m.ID, Sees: true}
		at := m.At
		if at.IsZero() {
			at = h.cfg.Store.Now()
		}
		todostore.AttributeAt(&line, hist, at)
		if _, err := h.cfg.Store.RecordAttributed(h.id, line); err != nil {
			return err
		}
	}
	return nil
}
