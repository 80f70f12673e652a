package perf

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/board/files"
	"github.com/todosh/todosh/board/postgres"
)

// boardPGEnv names the PostgreSQL server of the board's benchmarks (as
// the board's tests: .ci/postgres starts one).
const boardPGEnv = "TODOSH_TEST_PG_URL"

func filesBoard(b *testing.B, n int) (*files.Board, []board.Item) {
	b.Helper()
	dir, _, err := files.Init(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	fb := files.Open(dir)
	now := time.Now()
	items := make([]board.Item, n)
	for i := range items {
		items[i], _ = board.New(fmt.Sprintf("item %d of the board", i), nil, now.Add(time.Duration(i)))
	}
	if _, err := fb.Import(context.Background(), items); err != nil {
		b.Fatal(err)
	}
	return fb, items
}

// BenchmarkBoardClaim is a claim on the files engine (the flock, the item
// read and checked, its durable write) against the durable-write floor of
// one change. Target: ratio ≤ 2.
func BenchmarkBoardClaim(b *testing.B) {
	fb, items := filesBoard(b, 100)
	who := board.Who{Session: "bench", Host: "here"}
	data := files.Encode(&items[0])
	fl := &Floor{Dir: b.TempDir(), Data: data, Line: append(data[:200:200], '\n')}
	pair(b, fl.Change, func(i int) error {
		_, err := fb.Claim(context.Background(), items[i%len(items)].ID, who, time.Hour)
		return err
	})
}

// BenchmarkBoardReady10000 is `board ready` on a files board of 10,000
// items: read every item file, then the ready ones in order. Target:
// under 50 ms.
func BenchmarkBoardReady10000(b *testing.B) {
	fb, _ := filesBoard(b, 10000)
	ctx := context.Background()
	if _, _, err := fb.Ready(ctx); err != nil { // writes the index
		b.Fatal(err)
	}
	benchReady(b, fb)
}

func benchReady(b *testing.B, e board.Engine) {
	ctx := context.Background()
	var tw, tc time.Duration
	n := 0
	for b.Loop() {
		c0, t0 := cpu(), time.Now()
		items, problems, err := e.Ready(ctx)
		if err != nil || len(problems) > 0 || len(items) != 10000 {
			b.Fatalf("ready: %d items, %v %v", len(items), problems, err)
		}
		tw += time.Since(t0)
		tc += cpu() - c0
		n++
	}
	b.ReportMetric(float64(tw.Milliseconds())/float64(n), "wall-ms")
	b.ReportMetric(float64(tc.Milliseconds())/float64(n), "cpu-ms")
}

func pgBoard(b *testing.B, n int) (*postgres.Board, []board.Item) {
	b.Helper()
	url := os.Getenv(boardPGEnv)
	if url == "" {
		b.Skip(boardPGEnv + " is not set: no PostgreSQL server (.ci/postgres starts one)")
	}
	ctx := context.Background()
	pb, err := postgres.Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pb.Close() })
	// A board of its own: the benchmark empties the table it uses.
	if err := pb.Exec(ctx, "TRUNCATE todosh_board_items"); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	items := make([]board.Item, n)
	for i := range items {
		items[i], _ = board.New(fmt.Sprintf("item %d of the board", i), nil, now.Add(time.Duration(i)))
	}
	if _, err := pb.Import(ctx, items); err != nil {
		b.Fatal(err)
	}
	return pb, items
}

// BenchmarkBoardClaimPostgres is a claim on PostgreSQL over loopback:
// one UPDATE … RETURNING. It reports the median. Target: under 2 ms.
func BenchmarkBoardClaimPostgres(b *testing.B) {
	pb, items := pgBoard(b, 100)
	who := board.Who{Session: "bench", Host: "here"}
	var times []time.Duration
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		if _, err := pb.Claim(context.Background(), items[i%len(items)].ID, who, time.Hour); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds()), "median-µs")
}

// BenchmarkBoardReady10000Postgres is `board ready` over 10,000 items on
// PostgreSQL.
func BenchmarkBoardReady10000Postgres(b *testing.B) {
	pb, _ := pgBoard(b, 10000)
	benchReady(b, pb)
}
