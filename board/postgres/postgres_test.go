package postgres

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/board/boardtest"
)

// urlEnv names the server the tests use; without it they skip.
const urlEnv = "TODOSH_TEST_PG_URL"

func TestMain(m *testing.M) {
	boardtest.Main(m, func(spec string) (board.Engine, error) { return Open(context.Background(), spec) })
}

func testURL(t *testing.T) string {
	u := os.Getenv(urlEnv)
	if u == "" {
		t.Skip(urlEnv + " is not set: no PostgreSQL server to test against (.ci/postgres starts one)")
	}
	return u
}

// newBoard makes a schema of its own for each board, so tests share a
// server and never a board.
func newBoard(t *testing.T) string {
	raw := testURL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("t_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, raw)
		if err == nil {
			c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			c.Close(ctx)
		}
	})
	u, _ := url.Parse(raw)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func openSpec(spec string) (board.Engine, error) { return Open(context.Background(), spec) }

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
	spec := newBoard(t)
	ctx := context.Background()
	b, err := Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.pool.Exec(ctx, `INSERT INTO todosh_board_schema (version) VALUES ($1)`, Version+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, spec); err == nil || !strings.Contains(err.Error(), "upgrade todosh") {
		t.Fatalf("open of a newer schema: %v", err)
	}
}
