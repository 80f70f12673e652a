package clis

import (
	"bytes"

	"github.com/todosh/todosh/agent"
)

// Token usage, as each CLI's stream reports it (docs/agents.md, "Token
// usage"). Input counts every token the model read, cached or not, as the
// OpenAI and Gemini APIs count their prompt tokens; Anthropic's API
// counts cache reads and writes apart, so Claude's three are added.
//
// The parsers pass what they read through a usageMeter (agent.UsageMeter),
// which makes deltas of totals and keeps out what cannot be true.

// usageMeter is a parser's agent.UsageMeter, passing its events on as
// updates.
type usageMeter struct {
	m agent.UsageMeter
}

func (u *usageMeter) send(ev agent.Event, ok, atEnd bool, emit func(Update)) {
	switch {
	case !ok:
	case ev.Kind == agent.EventUsage:
		emit(Update{Kind: UpdateUsage, Usage: ev.Usage, AtEnd: atEnd})
	case ev.Kind == agent.EventNotice:
		emit(Update{Kind: UpdateNotice, Text: ev.Text, Meter: true})
	}
}

// add passes on tokens spent since the previous report.
func (u *usageMeter) add(name string, in agent.Usage, emit func(Update)) {
	u.m.Name = name
	ev, ok := u.m.Add(in)
	u.send(ev, ok, false, emit)
}

// to passes on what a running total adds. Codex and Gemini give theirs
// only when the turn ends: AtEnd.
func (u *usageMeter) to(name string, total agent.Usage, emit func(Update)) {
	u.m.Name = name
	ev, ok := u.m.To(total)
	u.send(ev, ok, true, emit)
}

// atLeast passes on what a total at the end adds to the parts reported:
// AtEnd.
func (u *usageMeter) atLeast(name string, total agent.Usage, emit func(Update)) {
	u.m.Name = name
	ev, ok := u.m.AtLeast(total)
	u.send(ev, ok, true, emit)
}

// usageFields reads the counts named by keys from the JSON object raw and
// adds them up, for input and for output; ok is false when raw is no
// object.
func usageFields(raw []byte, in, out []string) (u agent.Usage, ok bool) {
	m := jsonObject(bytes.TrimSpace(raw))
	if m == nil {
		return u, false
	}
	sum := func(keys []string) int64 {
		var n int64
		for _, k := range keys {
			c := agent.UsageCount(m[k])
			if c < 0 {
				return -1 // one bad count spoils the sum: the meter refuses it
			}
			n += c
		}
		return n
	}
	return agent.Usage{Input: sum(in), Output: sum(out)}, true
}

// Claude Code (and Qwen Code, whose stream is Claude's shape): every
// assistant line carries its message's usage, and the lines of one
// message (one per content block) share its id and its usage, so a
// message counts once, by id, and again only for what a later line of it
// adds. The output count of those lines is the one the message started
// with; the result line's usage is the turn's total, which supplies the
// rest (usageMeter.atLeast).
var (
	claudeInput  = []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}
	claudeOutput = []string{"output_tokens"}
)

// newQwenUsage is Qwen Code's usage, which differs from Claude's in two
// ways (checked with Qwen Code 0.24.4): input_tokens is the prompt's count
// with the cached tokens in it (cache_read_input_tokens repeats those),
// and the result line's usage is the session's total, the turns before a
// --resume included. Each assistant line's usage is its request's, whole:
// they are all there is to count.
func newQwenUsage() claudeUsage {
	return claudeUsage{input: []string{"input_tokens"}, messagesOnly: true}
}

// claudeUsage is what a Claude parser knows of the turn's usage.
type claudeUsage struct {
	// input are the usage object's input counts, claudeInput when nil;
	// messagesOnly leaves the result line's total out (Qwen's).
	input        []string
	messagesOnly bool

	meter usageMeter
	// byMessage is each message's usage passed on so far, by message id
	// (its raw JSON).
	byMessage map[string]messageUsage
}

// messageUsage is one message's usage passed on so far, and the usage
// object of its last line as written: the lines of a message repeat it,
// and a line that does is not read again.
type messageUsage struct {
	u   agent.Usage
	raw string
}

// message reads one assistant line's message usage (raw, the usage
// object; id, the message's id as raw JSON).
func (c *claudeUsage) message(name string, id, raw []byte, emit func(Update)) {
	hasID := len(id) > 2 && id[0] == '"'
	// Keyed by the id as written: a lookup by string(id) costs no copy.
	seen, known := c.byMessage[string(id)]
	if hasID && known && seen.raw == string(raw) {
		return // another line of the message, the same usage: nothing to add
	}
	u, ok := usageFields(raw, c.inputs(), claudeOutput)
	switch {
	case !ok:
		return
	case !hasID || u.Input < 0 || u.Output < 0:
		c.meter.add(name, u, emit) // no id: a message of its own; or refused, with its notice
		return
	}
	if c.byMessage == nil {
		c.byMessage = map[string]messageUsage{}
	}
	more := agent.Usage{Input: max(0, u.Input-seen.u.Input), Output: max(0, u.Output-seen.u.Output)}
	c.byMessage[string(id)] = messageUsage{u: agent.Usage{Input: max(u.Input, seen.u.Input), Output: max(u.Output, seen.u.Output)}, raw: string(raw)}
	c.meter.add(name, more, emit)
}

// result reads the result line's usage, the turn's total.
func (c *claudeUsage) result(name string, raw []byte, emit func(Update)) {
	if c.messagesOnly {
		return
	}
	if u, ok := usageFields(raw, c.inputs(), claudeOutput); ok {
		c.meter.atLeast(name, u, emit)
	}
}

// inputs are the input counts of the usage object.
func (c *claudeUsage) inputs() []string {
	if c.input == nil {
		return claudeInput
	}
	return c.input
}

// codexUsage reads turn.completed's usage (raw): the thread's total
// (codex exec runs one turn a process, and a resumed thread's total counts
// the turns before, which were before), so the turn's is what it adds to
// before. input_tokens holds the cached ones; output_tokens the reasoning
// ones.
func codexUsage(meter *usageMeter, before agent.Usage, raw []byte, emit func(Update)) {
	u, ok := usageFields(raw, codexInput, codexOutput)
	if !ok {
		return
	}
	if u.Input >= before.Input && u.Output >= before.Output {
		u.Input -= before.Input
		u.Output -= before.Output
	} // else a thread that started again: its total is the turn's
	meter.to("codex", u, emit)
}

var (
	codexInput  = []string{"input_tokens"}
	codexOutput = []string{"output_tokens"}
)

// codexRolloutUsage is the usage total of Codex's thread as its rollout
// last recorded it (an event_msg token_count's
// info.total_token_usage), the zero Usage when there is none.
func codexRolloutUsage(env []string, thread string) agent.Usage {
	data, ok := codexRolloutTail(env, thread)
	if !ok {
		return agent.Usage{}
	}
	return codexLastUsage(data)
}

// codexLastUsage is the total of the last token_count line in a rollout's
// end; lines that do not decode are skipped.
func codexLastUsage(rollout []byte) agent.Usage {
	for len(rollout) > 0 {
		i := bytes.LastIndexByte(bytes.TrimRight(rollout, "\n"), '\n')
		line := rollout[i+1:]
		rollout = rollout[:max(i, 0)]
		if !bytes.Contains(line, []byte(`"token_count"`)) {
			continue
		}
		m, err := decodeLine(line)
		if err != nil {
			continue
		}
		total := m.obj("payload").obj("info")["total_token_usage"]
		if u, ok := usageFields(total, codexInput, codexOutput); ok && u.Real() {
			return u
		}
	}
	return agent.Usage{}
}

// geminiUsage reads a result line's stats (raw), the turn's total:
// Gemini CLI reports nothing of it before. input_tokens holds the cached
// ones.
func geminiUsage(meter *usageMeter, raw []byte, emit func(Update)) {
	if u, ok := usageFields(raw, []string{"input_tokens"}, []string{"output_tokens"}); ok {
		meter.to("gemini", u, emit)
	}
}

// piUsage reads an assistant message's usage: one model request's.
func piUsage(meter *usageMeter, raw []byte, emit func(Update)) {
	if u, ok := usageFields(raw, []string{"input", "cacheRead", "cacheWrite"}, []string{"output"}); ok {
		meter.add("pi", u, emit)
	}
}
