package todostore

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist/todolisttest"

	"github.com/todosh/todosh/todolist"
)

// FuzzCompactSameAsMarshal holds the compact encoders of items, subtasks
// and history lines to json.Marshal's bytes, for lists built from the
// input with every field set in some of them, text with characters JSON
// escapes, and unknown fields (which take json.Marshal's way).
func FuzzCompactSameAsMarshal(f *testing.F) {
	for _, seed := range []string{"", "\x03abc\x00\x01", "\x04\x80\x81\x82\x83\x06\x07", "\x05aabbc\x61\x72\x83\x94\xa5\xb6\xc7", "<&>\u2028\"\\\x01\xff"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before, after := todolisttest.FuzzLists(data)
		text := string(data)
		for i := range after {
			td := &after[i]
			switch i % 4 {
			case 0:
				td.ActiveForm, td.Evidence = text, "<"+text+">"
			case 1:
				td.Origin, td.UID, td.Rev = todolist.OriginPerson, "t"+text, len(data)
			case 2:
				td.Extra = todolist.Extra{"priority": json.RawMessage(`"high"`)}
			}
			for j := range td.Subtasks {
				st := &td.Subtasks[j]
				st.Evidence, st.Origin, st.UID, st.Rev = text, todolist.OriginPerson, "s1", j
				if j == 1 && i%3 == 0 {
					st.Extra = todolist.Extra{"note": json.RawMessage(`{"a":1}`)}
				}
			}
		}
		for _, td := range after {
			want, err := json.Marshal(td)
			if err != nil {
				t.Skip(err)
			}
			if got, err := marshalTodo(nil, td); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("marshalTodo:\n%s\nwant:\n%s\n%v", got, want, err)
			}
			for _, st := range td.Subtasks {
				want, _ := json.Marshal(st)
				if got, err := marshalSubtask(nil, st); err != nil || !bytes.Equal(got, want) {
					t.Fatalf("marshalSubtask:\n%s\nwant:\n%s\n%v", got, want, err)
				}
			}
		}
		d, err := encodeDelta(before, after)
		if err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 11, 25, 17, 20, 0, len(data), time.FixedZone("z", len(data)*60))
		lines := []wireLine{
			{N: 7, V: historyFormat, From: 3, DB: len(d), H: "abc", At: at, By: todolist.ByAgent, What: text, D: d, PID: 42},
			{N: 1, At: at, By: todolist.ByYou, What: "<first>", Base: true, Revert: 2},
			{N: 2, V: historyFormat, At: at, By: todolist.ByOther, What: text, Todos: &after},
			{N: 3, At: at, By: todolist.ByYou, What: "x", Dropped: before},
			{N: 4, V: historyFormat, At: at, By: todolist.ByYou, What: "snapshot", Todos: &before, From: 4},
			{N: 5, At: at, By: todolist.ByYou, What: "empty", Todos: &[]todolist.Todo{}},
		}
		for _, w := range lines {
			want, err := json.Marshal(w)
			if err != nil {
				t.Skip(err)
			}
			if got, err := marshalLine([]byte("prefix"), &w); err != nil || !bytes.Equal(got, append([]byte("prefix"), want...)) {
				t.Fatalf("marshalLine:\n%s\nwant:\nprefix%s\n%v", got, want, err)
			}
		}
	})
}
