package todotools

import (
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// --require-evidence where todosh sees the agent's work: text is not a
// receipt (issue 26).
func TestRequireEvidenceNeedsAReceipt(t *testing.T) {
	list := []todolist.Todo{
		{Content: "write the parser", Status: todolist.InProgress},
		{Content: "write tests", Status: todolist.Pending},
	}
	write := `{"todos":[{"content":"write the parser","status":"completed","evidence":"EV"},{"content":"write tests","status":"pending"}]}`
	for _, tc := range []struct {
		name     string
		work     []todostore.WorkLine // recorded while item 1 is in progress
		evidence string
		wantErr  string
	}{
		{"no work seen at all: text counts", nil, "ran the tests", ""},
		{"work seen, none for this item", []todostore.WorkLine{{Tool: "Bash", Kind: "execute", Target: "ls", OK: true}}, "done", ""},
		{"a failed command is no receipt", []todostore.WorkLine{{Tool: "Bash", Kind: "execute", Target: "go test ./...", OK: false}}, "done", "has no receipt"},
		{"a read is no receipt", []todostore.WorkLine{{Tool: "Read", Kind: "read", Target: "a.go", OK: true}, {Tool: "Bash", Kind: "execute", OK: true, Target: "x"}}, "done", ""},
		{"named command seen", []todostore.WorkLine{{Tool: "Bash", Kind: "execute", Target: "go test ./...", OK: true}}, "ran `go test ./...`", ""},
		{"named command not seen", []todostore.WorkLine{{Tool: "Bash", Kind: "execute", Target: "go build", OK: true}}, "ran `go test ./...`", "did not see succeed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools := toolTestTools(t, list)
			tools.RequireEvidence = true
			st, id := tools.Session.Store, tools.Session.ID
			for _, w := range tc.work {
				if _, err := st.RecordWork(id, w); err != nil {
					t.Fatal(err)
				}
			}
			if tc.name == "work seen, none for this item" {
				// the work was the next item's: item 1 completes without it
				tools2 := toolTestTools(t, []todolist.Todo{{Content: "write the parser", Status: todolist.Pending}, {Content: "write tests", Status: todolist.InProgress}})
				tools2.RequireEvidence = true
				if _, err := tools2.Session.Store.RecordWork(tools2.Session.ID, tc.work[0]); err != nil {
					t.Fatal(err)
				}
				out := tools2.Call(Write, []byte(strings.Replace(write, "EV", tc.evidence, 1)))
				if !out.IsError || !strings.Contains(out.Result, "has no receipt") {
					t.Fatalf("result %q, want no receipt", out.Result)
				}
				return
			}
			out := tools.Call(Write, []byte(strings.Replace(write, "EV", tc.evidence, 1)))
			if tc.wantErr == "" && out.IsError || tc.wantErr != "" && (!out.IsError || !strings.Contains(out.Result, tc.wantErr)) {
				t.Fatalf("result %q (error %v), want error %q", out.Result, out.IsError, tc.wantErr)
			}
			if done := toolTestLoad(t, tools).Todos[0].Status == todolist.Completed; done != (tc.wantErr == "") {
				t.Fatalf("item completed %v after %q", done, out.Result)
			}
		})
	}
}
