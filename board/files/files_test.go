package files

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/board/boardtest"
)

func TestMain(m *testing.M) {
	boardtest.Main(m, openSpec)
}

func openSpec(dir string) (board.Engine, error) { return Open(dir), nil }

func newBoard(t *testing.T) string {
	dir, _, err := Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestEngine is the engines' one suite on the files engine.
func TestEngine(t *testing.T) {
	boardtest.Run(t, boardtest.Harness{New: newBoard, Open: openSpec})
}

// TestBrokenItemSkipped: a hand-broken item file is named and skipped
// while the rest of the board works.
func TestBrokenItemSkipped(t *testing.T) {
	dir := newBoard(t)
	b := Open(dir)
	ctx := context.Background()
	good, _ := board.New("good", nil, time.Now())
	if err := b.Add(ctx, good); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "brokenid.json")
	if err := os.WriteFile(broken, []byte(`{"id": "brokenid", "text": "half`), 0o644); err != nil {
		t.Fatal(err)
	}
	items, problems, err := b.List(ctx)
	if err != nil || len(items) != 1 || items[0].ID != good.ID {
		t.Fatalf("list = %v, %v", items, err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), broken) {
		t.Fatalf("problems = %v, want one naming %s", problems, broken)
	}
	if _, err := b.ClaimNext(ctx, board.Who{Session: "s"}, time.Minute); err != nil {
		t.Fatalf("claim --next beside a broken file: %v", err)
	}
	if _, err := b.Claim(ctx, "brokenid", board.Who{Session: "s"}, time.Minute); err == nil || !strings.Contains(err.Error(), broken) {
		t.Fatalf("claiming the broken item: %v", err)
	}
	if data, _ := os.ReadFile(broken); string(data) != `{"id": "brokenid", "text": "half` {
		t.Fatalf("the broken file was changed: %s", data)
	}
}

// TestFind: a worktree (a .git file) uses its own checkout's board, not
// one further up.
func TestFind(t *testing.T) {
	top := t.TempDir()
	os.Mkdir(filepath.Join(top, ".git"), 0o755)
	if _, _, err := Init(top); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(top, "wt", "feature")
	os.MkdirAll(filepath.Join(wt, "sub"), 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: elsewhere\n"), 0o644)
	os.Mkdir(filepath.Join(top, "x"), 0o755)
	if got, err := Find(filepath.Join(top, "x")); err != nil || got != filepath.Join(top, Dir) {
		t.Fatalf("find = %s, %v", got, err)
	}
	if got, err := Find(filepath.Join(wt, "sub")); err == nil {
		t.Fatalf("the worktree found the main checkout's board %s", got)
	}
}

// TestReadyIndex: ready through the index follows item files changed in
// place, added and removed, and a garbled index only costs reads.
func TestReadyIndex(t *testing.T) {
	dir := newBoard(t)
	b := Open(dir)
	ctx := context.Background()
	var ids []string
	for _, text := range []string{"a", "b", "c"} {
		it, _ := board.New(text, nil, time.Now())
		if err := b.Add(ctx, it); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, it.ID)
	}
	texts := func() string {
		t.Helper()
		ready, problems, err := b.Ready(ctx)
		if err != nil || len(problems) > 0 {
			t.Fatalf("ready: %v %v", err, problems)
		}
		var out []string
		for _, it := range ready {
			out = append(out, it.Text)
		}
		return strings.Join(out, " ")
	}
	if got := texts(); got != "a b c" {
		t.Fatalf("ready = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, indexName)); err != nil {
		t.Fatalf("no index after ready: %v", err)
	}
	// Edited in place (same inode), as a person's editor may.
	it, _ := b.Get(ctx, ids[1])
	it.Text = "b edited by hand"
	f, err := os.OpenFile(b.path(it.ID), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(Encode(&it))
	f.Close()
	os.Remove(b.path(ids[2]))
	if got := texts(); got != "a b edited by hand" {
		t.Fatalf("ready after edits = %q", got)
	}
	os.WriteFile(filepath.Join(dir, indexName), []byte(indexHeader+"\nnot\ta line\n"), 0o644)
	if got := texts(); got != "a b edited by hand" {
		t.Fatalf("ready with a garbled index = %q", got)
	}
}
