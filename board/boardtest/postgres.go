package boardtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PGEnv names the PostgreSQL server the board's tests use; without it
// they skip. .ci/postgres starts one and sets it.
const PGEnv = "TODOSH_TEST_PG_URL"

// PostgresURL returns $TODOSH_TEST_PG_URL with a schema of the test's
// own (so a board of its own), dropped after the test; without the
// variable the test skips, saying why.
func PostgresURL(t testing.TB) string {
	raw := os.Getenv(PGEnv)
	if raw == "" {
		t.Skip(PGEnv + " is not set: no PostgreSQL server to test against (.ci/postgres starts one)")
	}
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
		if c, err := pgx.Connect(ctx, raw); err == nil {
			c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			c.Close(ctx)
		}
	})
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("%s: %v", PGEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
