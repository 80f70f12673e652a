package postgres

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/board/boardtest"
)

func TestMain(m *testing.M) {
	boardtest.Main(m, openSpec)
}

func testURL(t *testing.T) string {
	u := os.Getenv(boardtest.PGEnv)
	if u == "" {
		t.Skip(boardtest.PGEnv + " is not set: no PostgreSQL server to test against (.ci/postgres starts one)")
	}
	return u
}

func newBoard(t *testing.T) string { return boardtest.PostgresURL(t) }

func openSpec(spec string) (board.Engine, error) { return Open(context.Background(), spec) }

// openNew opens a new, empty board on the test server, closed when t
// ends; spec opens it again.
func openNew(t *testing.T) (b *Board, spec string) {
	spec = newBoard(t)
	b, err := Open(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, spec
}

// TestEngine is the engines' one suite on PostgreSQL.
func TestEngine(t *testing.T) {
	boardtest.Run(t, boardtest.Harness{New: newBoard, Open: openSpec})
}

// TestUnreachable: a server that is down, or a wrong password, is one
// line naming the URL without its password.
func TestUnreachable(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, "postgres://todosh:secret-pw@127.0.0.1:9/todosh")
	if err == nil {
		t.Fatal("opened a board on a closed port")
	}
	msg := err.Error()
	if strings.Contains(msg, "secret-pw") || strings.Contains(msg, "\n") || !strings.Contains(msg, "postgres://todosh@127.0.0.1:9/todosh") {
		t.Fatalf("error = %q: want one line naming the URL without the password", msg)
	}
	raw := testURL(t)
	u, _ := url.Parse(raw)
	u.User = url.UserPassword(u.User.Username(), "wrong-pw")
	_, err = Open(ctx, u.String())
	if err == nil {
		t.Fatal("opened a board with a wrong password")
	}
	msg = err.Error()
	if strings.Contains(msg, "wrong-pw") || strings.Contains(msg, "\n") || !strings.Contains(msg, "password authentication failed") {
		t.Fatalf("error = %q: want one line, the cause, no password", msg)
	}
	t.Log(msg)
}

// TestSchemaVersioned: a database whose schema is newer than this todosh
// is refused, not written.
func TestSchemaVersioned(t *testing.T) {
	b, spec := openNew(t)
	ctx := context.Background()
	if _, err := b.pool.Exec(ctx, `INSERT INTO todosh_board_schema (version) VALUES ($1)`, Version+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, spec); err == nil || !strings.Contains(err.Error(), "upgrade todosh") {
		t.Fatalf("open of a newer schema: %v", err)
	}
}

// TestBrokenRowSkipped: a row whose item is not valid (edited by hand) is
// named and skipped; the rest of the board works.
func TestBrokenRowSkipped(t *testing.T) {
	b, _ := openNew(t)
	ctx := context.Background()
	good, _ := board.New("good", nil, time.Now())
	if err := b.Add(ctx, good); err != nil {
		t.Fatal(err)
	}
	if err := b.Exec(ctx, `INSERT INTO todosh_board_items (id, status, created, item)
		VALUES ('brokenrow', 'open', now(), '{"id": "brokenrow", "text": "", "status": "open"}')`); err != nil {
		t.Fatal(err)
	}
	items, problems, err := b.List(ctx)
	if err != nil || len(items) != 1 || items[0].ID != good.ID {
		t.Fatalf("list = %v, %v", items, err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), "item brokenrow") {
		t.Fatalf("problems = %v", problems)
	}
	if it, err := b.ClaimNext(ctx, board.Who{Session: "s"}, time.Minute); err != nil || it.ID != good.ID {
		t.Fatalf("claim --next beside a broken row = %s, %v", it.ID, err)
	}
}
