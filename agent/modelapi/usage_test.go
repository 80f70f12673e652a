package modelapi

import (
	"context"
	"strings"
	"testing"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/todotools"
)

// TestUsageReported: the backend asks for the usage chunk and passes each
// request's usage on as one EventUsage, in the wire formats servers use
// (a last chunk with no choices; a whole completion's usage); what cannot
// be true is one notice.
func TestUsageReported(t *testing.T) {
	plan := args(td{"todos": []td{{"content": "Parser", "status": "in_progress"}}})
	for _, tc := range []struct {
		name    string
		replies []fakeReply
		want    []agent.Usage
		notices int
	}{
		{"each request's usage", []fakeReply{
			{calls: []fakeCall{{todotools.Write, []string{plan}}}, usage: `{"prompt_tokens":1200,"completion_tokens":40,"total_tokens":1240,"prompt_tokens_details":{"cached_tokens":1024}}`},
			{text: []string{"done"}, usage: `{"prompt_tokens":1300,"completion_tokens":5,"total_tokens":1305}`}},
			[]agent.Usage{{Input: 1200, Output: 40}, {Input: 1300, Output: 5}}, 0},
		{"a server that reports none", []fakeReply{{text: []string{"done"}}}, nil, 0},
		{"a whole completion's usage", []fakeReply{{ctype: "application/json",
			body: `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2}}`}},
			[]agent.Usage{{Input: 9, Output: 2}}, 0},
		{"absurd counts: one notice, the turn goes on", []fakeReply{
			{calls: []fakeCall{{todotools.Write, []string{plan}}}, usage: `{"prompt_tokens":-5,"completion_tokens":40}`},
			{calls: []fakeCall{{todotools.Write, []string{plan}}}, usage: `{"prompt_tokens":2e12,"completion_tokens":40}`},
			{text: []string{"done"}, usage: `{"prompt_tokens":10,"completion_tokens":1e0}`}},
			[]agent.Usage{{Input: 10, Output: 1}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeServer(t, tc.replies...)
			b := newTestBackend(t, f, testSession(t, nil))
			var rec recorder
			if _, err := b.RunTurn(context.Background(), agent.Turn{Prompt: "go"}, rec.emit); err != nil {
				t.Fatal(err)
			}
			var got []agent.Usage
			for _, ev := range rec.events {
				if ev.Kind == agent.EventUsage {
					got = append(got, *ev.Usage)
				}
			}
			notices := rec.lines(agent.EventNotice)
			if len(got) != len(tc.want) || len(notices) != tc.notices {
				t.Fatalf("usage %+v notices %q, want %+v and %d notices", got, notices, tc.want, tc.notices)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("usage %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
			for _, n := range notices {
				if !strings.Contains(n, "ignored") {
					t.Errorf("notice %q", n)
				}
			}
			for i, req := range f.requests() {
				if req.StreamOptions == nil || !req.StreamOptions.IncludeUsage {
					t.Errorf("request %d does not ask for usage", i)
				}
			}
		})
	}
}
