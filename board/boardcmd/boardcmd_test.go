package boardcmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/board/files"
)

// FuzzReadJSONL: an import is refused whole or gives items that export
// back to lines import reads the same.
func FuzzReadJSONL(f *testing.F) {
	f.Add("{\"id\":\"ab12\",\"text\":\"t\",\"status\":\"open\",\"created\":\"2026-11-26T10:00:00Z\",\"updated\":\"2026-11-26T10:00:00Z\"}\n\n")
	f.Add("{\"id\":\"ab12\"}\nnot json\n")
	f.Fuzz(func(t *testing.T, in string) {
		items, err := ReadJSONL(strings.NewReader(in), "in")
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := writeJSONL(&out, items); err != nil {
			t.Fatal(err)
		}
		again, err := ReadJSONL(&out, "out")
		if err != nil || len(again) != len(items) {
			t.Fatalf("export of an import does not import: %v", err)
		}
	})
}

// TestRunVerbs drives the verb table in process on a files board: flags
// after arguments, --board-url before the verb, exit codes.
func TestRunVerbs(t *testing.T) {
	root := t.TempDir()
	var out, errw bytes.Buffer
	env := &Env{Cwd: root, Getenv: func(string) string { return "" }, Out: &out, Err: &errw,
		Who: board.Who{Session: "me", Host: "h"}}
	run := func(args ...string) error {
		out.Reset()
		errw.Reset()
		return Run(context.Background(), env, args)
	}
	if err := run("init"); err != nil {
		t.Fatal(err)
	}
	if err := run("add", "one", "two"); err != nil || !strings.Contains(out.String(), ": one two") {
		t.Fatalf("add: %v %q", err, out.String())
	}
	id := strings.TrimSuffix(strings.Fields(out.String())[1], ":")
	if err := run("add", "three", "--blocked-by", id); err != nil {
		t.Fatal(err)
	}
	if err := run("--as", "other", "claim", id, "--lease", "5m"); err != nil {
		t.Fatal(err)
	}
	err := run("claim", id)
	var xe *ExitError
	if !asExit(err, &xe) || xe.Code != 1 || !strings.Contains(err.Error(), "already claimed by other@h until") {
		t.Fatalf("lost claim: %v", err)
	}
	if err := run("claim"); !asExit(err, &xe) || xe.Code != 2 {
		t.Fatalf("claim without an id: %v", err)
	}
	if err := run("--board-url", "mysql://x", "ready"); !asExit(err, &xe) || xe.Code != 2 {
		t.Fatalf("a URL that is not postgres: %v", err)
	}
	if err := run("show"); err != nil || !strings.Contains(out.String(), "claimed (1)") || !strings.Contains(out.String(), "blocked (1)") {
		t.Fatalf("show: %v\n%s", err, out.String())
	}
	dir, _ := files.Find(root)
	items, _, _ := files.Open(dir).List(context.Background())
	if len(items) != 2 || !items[0].Leased(time.Now()) {
		t.Fatalf("board = %+v", items)
	}
}

func asExit(err error, xe **ExitError) bool {
	e, ok := err.(*ExitError)
	*xe = e
	return ok
}
