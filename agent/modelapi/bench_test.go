package modelapi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/todotools"
)

// benchLists are two lists a turn alternates between, so every turn's
// todo_write really changes the file.
var benchLists = [2]string{
	`{"todos":[{"content":"Create the project skeleton","status":"completed","evidence":"go build ok"},` +
		`{"content":"Implement the CSV parser","status":"in_progress","subtasks":[{"content":"quoted fields","status":"completed"},{"content":"CRLF line endings","status":"pending"}]},` +
		`{"content":"Write unit tests","status":"pending"}]}`,
	`{"todos":[{"content":"Create the project skeleton","status":"completed","evidence":"go build ok"},` +
		`{"content":"Implement the CSV parser","status":"in_progress","subtasks":[{"content":"quoted fields","status":"completed"},{"content":"CRLF line endings","status":"pending"}]},` +
		`{"content":"Write unit tests","status":"in_progress"}]}`,
}

// benchTurn is the canned turn: a reply with one todo_write, then a reply
// with text only.
func benchTurn(i int) []fakeReply {
	return []fakeReply{
		{text: []string{"Updating the list.\n"}, calls: []fakeCall{{todotools.Write, split(benchLists[i%2], 4)}}},
		{text: []string{"Done ", "for now."}},
	}
}

// BenchmarkTurnOverhead measures one turn (model → todo_write → model) as
// todosh runs it: decoding the stream, running the tool, the locked atomic
// store write, saving the conversation and emitting events (no rendering).
// fake-server includes HTTP over loopback to an httptest server;
// in-process plays the same replies from memory, leaving todosh's own work.
// The conversation is reset each turn so its size stays that of a short one.
func BenchmarkTurnOverhead(b *testing.B) {
	run := func(b *testing.B, bk *Backend) {
		b.ReportAllocs()
		emit := func(agent.Event) {}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			bk.conv = bk.conv[:0]
			if _, err := bk.RunTurn(context.Background(), agent.Turn{Prompt: "go on", TodoContext: "x"}, emit); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("fake-server", func(b *testing.B) {
		f := newFakeServer(b)
		for i := 0; i < b.N; i++ {
			f.replies = append(f.replies, benchTurn(i)...)
		}
		run(b, newTestBackend(b, f, testSession(b, nil)))
	})
	b.Run("in-process", func(b *testing.B) {
		var script []string
		for i := 0; i < b.N; i++ {
			script = append(script,
				fmt.Sprintf(`{"text":"Updating the list.\n","tool_calls":[{"name":"todo_write","arguments":%s}]}`, benchLists[i%2]),
				`{"text":"Done for now."}`)
		}
		sess := testSession(b, nil)
		bk, err := NewScript([]byte("["+strings.Join(script, ",")+"]"), sess, false)
		if err != nil {
			b.Fatal(err)
		}
		bk.convPath = ConvPath(sess.Store, sess.ID)
		run(b, bk)
	})
}

// BenchmarkStoreWrite measures the writes of a turn alone: a todo_write
// through the tools (locked read-modify-write, fsync, rename, directory
// fsync) and saving a short conversation.
func BenchmarkStoreWrite(b *testing.B) {
	b.Run("todo_write", func(b *testing.B) {
		tools := &todotools.Tools{Session: testSession(b, nil)}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if out := tools.Call(todotools.Write, []byte(benchLists[i%2])); out.IsError || !out.Changed {
				b.Fatal(out.Result)
			}
		}
	})
	b.Run("conversation", func(b *testing.B) {
		sess := testSession(b, nil)
		msgs := []Message{{Role: "user", Content: "go on"}, {Role: "assistant", Content: "Updating.",
			ToolCalls: []ToolCall{{ID: "c", Type: "function", Function: FunctionCall{Name: todotools.Write, Arguments: benchLists[0]}}}},
			{Role: "tool", ToolCallID: "c", Content: "Saved the list."}, {Role: "assistant", Content: "Done for now."}}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := saveConv(ConvPath(sess.Store, sess.ID), sess.ID, msgs); err != nil {
				b.Fatal(err)
			}
		}
	})
}
