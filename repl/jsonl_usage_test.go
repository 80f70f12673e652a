package repl

import (
	"bytes"
	"strings"
	"testing"

	"github.com/todosh/todosh/agent"
)

// TestJSONLUsageKeepsText: a usage event between two pieces of one line
// of text leaves the line whole.
func TestJSONLUsageKeepsText(t *testing.T) {
	var out bytes.Buffer
	j := newJSONLView(&out)
	j.Event(agent.Event{Kind: agent.EventText, Text: "half a "})
	j.Event(agent.Event{Kind: agent.EventUsage, Usage: &agent.Usage{Input: 5, Output: 1}})
	j.Event(agent.Event{Kind: agent.EventText, Text: "line\n"})
	j.Flush()
	if got := out.String(); strings.Count(got, `"type":"text"`) != 1 || !strings.Contains(got, `"text":"half a line\n"`) {
		t.Errorf("stream:\n%s", got)
	}
}
