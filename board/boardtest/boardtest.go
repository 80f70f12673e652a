// Package boardtest is the one test suite of the board engines: every
// engine's tests call Run with a way to make a fresh board, and the
// several-process tests re-run the test binary as helpers (Main). Tests
// only; never linked into todosh.
package boardtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/internal/testenv"
)

// Harness makes boards for the suite: New returns the spec of a fresh,
// empty board (a directory, a URL), Open opens a spec in this process or
// in a helper.
type Harness struct {
	New  func(t *testing.T) string
	Open func(spec string) (board.Engine, error)
}

func (h Harness) open(t *testing.T, spec string) board.Engine {
	t.Helper()
	e, err := h.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// Run runs the whole suite against one engine.
func Run(t *testing.T, h Harness) {
	t.Run("Basics", func(t *testing.T) { testBasics(t, h) })
	t.Run("Refusals", func(t *testing.T) { testRefusals(t, h) })
	t.Run("Blocked", func(t *testing.T) { testBlocked(t, h) })
	t.Run("LeaseEnds", func(t *testing.T) { testLeaseEnds(t, h) })
	t.Run("Watch", func(t *testing.T) { testWatch(t, h) })
	t.Run("Import", func(t *testing.T) { testImport(t, h) })
	t.Run("ClaimRace", func(t *testing.T) { testClaimRace(t, h) })
	t.Run("Workers", func(t *testing.T) { testWorkers(t, h) })
	t.Run("Notes", func(t *testing.T) { testNotes(t, h) })
}

var (
	ctx   = context.Background()
	alice = board.Who{Session: "alice", Agent: "person", Host: "h1"}
	bob   = board.Who{Session: "bob", Agent: "claude", Host: "h2"}
)

func add(t *testing.T, e board.Engine, text string, blockedBy ...string) board.Item {
	t.Helper()
	it, err := board.New(text, blockedBy, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Add(ctx, it); err != nil {
		t.Fatalf("add %q: %v", text, err)
	}
	return it
}

func ids(items []board.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

func readyIDs(t *testing.T, e board.Engine) []string {
	t.Helper()
	items, problems, err := e.List(ctx)
	if err != nil || len(problems) > 0 {
		t.Fatalf("list: %v %v", err, problems)
	}
	want := ids(board.ReadyOf(items, time.Now()))
	ready, problems, err := e.Ready(ctx)
	if err != nil || len(problems) > 0 {
		t.Fatalf("ready: %v %v", err, problems)
	}
	// A lease may end between the two reads: only then may they differ.
	if got := ids(ready); !slices.Equal(got, want) && !slices.Equal(got, ids(board.ReadyOf(items, time.Now()))) {
		t.Fatalf("Ready = %v, ReadyOf(List) = %v", got, want)
	}
	return want
}

func testBasics(t *testing.T, h Harness) {
	e := h.open(t, h.New(t))
	a := add(t, e, "write the parser")
	b := add(t, e, "test the parser")
	if got := readyIDs(t, e); !slices.Equal(got, []string{a.ID, b.ID}) {
		t.Fatalf("ready = %v, want %v", got, []string{a.ID, b.ID})
	}
	it, err := e.Claim(ctx, a.ID, alice, time.Minute)
	if err != nil || it.Status != board.Claimed || !it.Claim.Same(alice) {
		t.Fatalf("claim = %+v, %v", it, err)
	}
	_, err = e.Claim(ctx, a.ID, bob, time.Minute)
	var ce *board.ClaimedError
	if !errors.As(err, &ce) || !ce.Claim.Same(alice) || !strings.Contains(err.Error(), "already claimed by alice@h1 until") {
		t.Fatalf("second claim: %v, want already claimed by alice", err)
	}
	if _, err := e.Claim(ctx, a.ID, alice, 2*time.Minute); err != nil {
		t.Fatalf("renewing one's own claim: %v", err)
	}
	if got := readyIDs(t, e); !slices.Equal(got, []string{b.ID}) {
		t.Fatalf("ready after the claim = %v", got)
	}
	if _, _, err := e.Update(ctx, a.ID, board.Finish(bob, board.Done, "")); !errors.Is(err, board.ErrClaimed) {
		t.Fatalf("bob finishing alice's item: %v", err)
	}
	if _, _, err := e.Update(ctx, a.ID, board.Release(bob)); !errors.Is(err, board.ErrClaimed) {
		t.Fatalf("bob releasing alice's item: %v", err)
	}
	it, changed, err := e.Update(ctx, a.ID, board.Finish(alice, board.Done, "go test ./parser passes"))
	if err != nil || !changed || it.Status != board.Done || it.Evidence != "go test ./parser passes" {
		t.Fatalf("done = %+v %v %v", it, changed, err)
	}
	if _, changed, err := e.Update(ctx, a.ID, board.Finish(alice, board.Done, "go test ./parser passes")); err != nil || changed {
		t.Fatalf("done again: changed %v, %v; want no change", changed, err)
	}
	if _, err := e.Claim(ctx, a.ID, bob, time.Minute); err == nil || !strings.Contains(err.Error(), "is done") {
		t.Fatalf("claiming a done item: %v", err)
	}
	n, err := e.ClaimNext(ctx, bob, time.Minute)
	if err != nil || n.ID != b.ID {
		t.Fatalf("claim --next = %s, %v; want %s", n.ID, err, b.ID)
	}
	if _, err := e.ClaimNext(ctx, bob, time.Minute); !errors.Is(err, board.ErrNoneReady) {
		t.Fatalf("claim --next on an empty board: %v", err)
	}
	if _, _, err := e.Update(ctx, b.ID, board.Release(bob)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Update(ctx, b.ID, board.EditText("test the parser with fuzzing")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Update(ctx, b.ID, board.Finish(alice, board.Dropped, "")); err != nil {
		t.Fatal(err)
	}
	got, err := e.Get(ctx, b.ID)
	if err != nil || got.Text != "test the parser with fuzzing" || got.Status != board.Dropped {
		t.Fatalf("get = %+v, %v", got, err)
	}
	if _, err := e.Get(ctx, "nosuchid"); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("get of an unknown id: %v", err)
	}
}

func testRefusals(t *testing.T, h Harness) {
	e := h.open(t, h.New(t))
	a := add(t, e, "a")
	b := add(t, e, "b", a.ID)
	c := add(t, e, "c", b.ID)
	it, _ := board.New("d", []string{"unknownid"}, time.Now())
	if err := e.Add(ctx, it); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("add blocked by an unknown id: %v", err)
	}
	before, _ := e.Get(ctx, a.ID)
	if _, _, err := e.Update(ctx, a.ID, board.SetBlockedBy([]string{c.ID})); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("a blocked by c (c→b→a): %v, want a cycle refused", err)
	}
	if _, _, err := e.Update(ctx, a.ID, board.SetBlockedBy([]string{a.ID})); err == nil {
		t.Fatal("an item blocked by itself was allowed")
	}
	after, _ := e.Get(ctx, a.ID)
	if !slices.Equal(before.BlockedBy, after.BlockedBy) || !after.Updated.Equal(before.Updated) {
		t.Fatalf("a refused change changed the item: %+v", after)
	}
	for _, lease := range []time.Duration{-5 * time.Minute, 0, board.MaxLease + time.Second} {
		if _, err := e.Claim(ctx, a.ID, alice, lease); err == nil {
			t.Fatalf("lease %s accepted", lease)
		}
		if _, err := e.ClaimNext(ctx, alice, lease); err == nil {
			t.Fatalf("lease %s accepted by claim --next", lease)
		}
	}
	if got, _ := e.Get(ctx, a.ID); got.Status != board.Open {
		t.Fatalf("a refused lease changed the item: %+v", got)
	}
	if _, _, err := e.Update(ctx, a.ID, board.EditText("")); err == nil {
		t.Fatal("empty text accepted")
	}
}

func testBlocked(t *testing.T, h Harness) {
	e := h.open(t, h.New(t))
	a := add(t, e, "a")
	b := add(t, e, "b", a.ID)
	if got := readyIDs(t, e); !slices.Equal(got, []string{a.ID}) {
		t.Fatalf("ready = %v, want only %s", got, a.ID)
	}
	if _, err := e.Claim(ctx, b.ID, alice, time.Minute); err == nil || !strings.Contains(err.Error(), "blocked by "+a.ID) {
		t.Fatalf("claiming a blocked item: %v", err)
	}
	if _, _, err := e.Update(ctx, b.ID, board.Finish(alice, board.Done, "")); err == nil {
		t.Fatal("a blocked item was done")
	}
	if _, err := e.Claim(ctx, a.ID, alice, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Update(ctx, a.ID, board.Finish(alice, board.Done, "")); err != nil {
		t.Fatal(err)
	}
	if got := readyIDs(t, e); !slices.Equal(got, []string{b.ID}) {
		t.Fatalf("ready after a is done = %v, want %s", got, b.ID)
	}
	if n, err := e.ClaimNext(ctx, bob, time.Minute); err != nil || n.ID != b.ID {
		t.Fatalf("claim --next = %s %v", n.ID, err)
	}
}

// waitFor polls cond until it holds; a wait, never a timing assertion.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting (30s) for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func testLeaseEnds(t *testing.T, h Harness) {
	e := h.open(t, h.New(t))
	a := add(t, e, "a")
	if _, err := e.Claim(ctx, a.ID, alice, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the lease to end", func() bool {
		_, err := e.Claim(ctx, a.ID, bob, time.Minute)
		return err == nil
	})
	got, _ := e.Get(ctx, a.ID)
	if !got.Claim.Same(bob) {
		t.Fatalf("claim after the lease = %+v", got.Claim)
	}
	if _, _, err := e.Update(ctx, a.ID, board.Release(alice)); !errors.Is(err, board.ErrClaimed) {
		t.Fatalf("alice releasing after her lease ended and bob claimed: %v", err)
	}
}

func testWatch(t *testing.T, h Harness) {
	spec := h.New(t)
	e := h.open(t, spec)
	other := h.open(t, spec)
	wctx, cancel := context.WithCancel(ctx)
	changed := make(chan struct{}, 100)
	done := make(chan error, 1)
	go func() { done <- e.Watch(wctx, func() { changed <- struct{}{} }) }()
	// The watch may start after the first add: add until it tells.
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	add(t, other, "first")
wait:
	for {
		select {
		case <-changed:
			break wait
		case <-tick.C:
			add(t, other, "another")
		case <-deadline:
			t.Fatal("watch never told of another handle's change")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watch: %v", err)
	}
}

func testImport(t *testing.T, h Harness) {
	src := h.open(t, h.New(t))
	a := add(t, src, "a")
	add(t, src, "b", a.ID)
	src.Claim(ctx, a.ID, alice, time.Minute)
	items, _, err := src.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dst := h.open(t, h.New(t))
	if n, err := dst.Import(ctx, items); err != nil || n != 2 {
		t.Fatalf("import = %d, %v", n, err)
	}
	if n, err := dst.Import(ctx, items); err != nil || n != 0 {
		t.Fatalf("import again = %d, %v; want 0", n, err)
	}
	got, _, _ := dst.List(ctx)
	if len(got) != 2 || got[0].ID != a.ID || got[0].Status != board.Claimed || !got[0].Claim.Same(alice) || got[1].BlockedBy[0] != a.ID {
		t.Fatalf("imported = %+v", got)
	}
}

// --- several processes ---

// The helper's environment: its role and the board's spec.
const (
	envRole = "BOARDTEST_ROLE"
	envSpec = "BOARDTEST_SPEC"
	envArg  = "BOARDTEST_ARG"
	envName = "BOARDTEST_NAME"
	envGo   = "BOARDTEST_GO"
)

// Main runs a helper when the test binary was started as one, else the
// tests. Call it from the engine's TestMain.
func Main(m *testing.M, open func(spec string) (board.Engine, error)) {
	role := os.Getenv(envRole)
	if role == "" {
		os.Exit(m.Run())
	}
	e, err := open(os.Getenv(envSpec))
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	defer e.Close()
	// Start together: wait for the go file.
	for {
		if _, err := os.Stat(os.Getenv(envGo)); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	who := board.Who{Session: os.Getenv(envName), Agent: "test", Host: "here"}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	switch role {
	case "race":
		for _, id := range strings.Split(os.Getenv(envArg), ",") {
			_, err := e.Claim(ctx, id, who, time.Minute)
			switch {
			case err == nil:
				fmt.Fprintln(out, "WIN", id)
			case errors.Is(err, board.ErrClaimed):
				fmt.Fprintln(out, "LOST", id)
			default:
				fmt.Fprintln(out, "ERR", id, err)
			}
		}
	case "worker", "stuck":
		lease := time.Minute
		if role == "stuck" {
			lease = 500 * time.Millisecond
		}
		for {
			it, err := e.ClaimNext(ctx, who, lease)
			if errors.Is(err, board.ErrNoneReady) {
				return
			}
			if err != nil {
				fmt.Fprintln(out, "ERR", err)
				return
			}
			fmt.Fprintln(out, "CLAIM", it.ID)
			if role == "stuck" {
				out.Flush()
				time.Sleep(time.Hour) // until kill -9
			}
		}
	case "notes":
		n, _ := strconv.Atoi(os.Getenv(envArg))
		id := os.Getenv("BOARDTEST_ITEM")
		for i := range n {
			text := fmt.Sprintf("note %d of %s", i, who.Session)
			if _, _, err := e.Update(ctx, id, board.AddNote(who, text)); err != nil {
				fmt.Fprintln(out, "ERR", err)
				continue
			}
			fmt.Fprintln(out, "ACK", text)
		}
	default:
		fmt.Fprintln(os.Stderr, "helper: unknown role", role)
		os.Exit(3)
	}
}

type helper struct {
	cmd *exec.Cmd
	out *os.File
}

// start starts n helpers of a role and returns them with the file that
// lets them go.
func start(t *testing.T, spec, role string, n int, extra func(i int) []string) ([]*helper, string) {
	t.Helper()
	dir := t.TempDir()
	goFile := filepath.Join(dir, "go")
	var hs []*helper
	for i := range n {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("out-%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		env := []string{envRole + "=" + role, envSpec + "=" + spec, envGo + "=" + goFile, envName + "=" + fmt.Sprintf("p%02d", i)}
		if extra != nil {
			env = append(env, extra(i)...)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = testenv.Env(dir, env...)
		cmd.Stdout, cmd.Stderr = f, f
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, &helper{cmd, f})
	}
	t.Cleanup(func() {
		for _, h := range hs {
			if h.cmd.ProcessState == nil {
				h.cmd.Process.Kill()
				h.cmd.Wait()
			}
		}
	})
	return hs, goFile
}

func release(t *testing.T, goFile string) {
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func (h *helper) wait(t *testing.T) []string {
	t.Helper()
	err := h.cmd.Wait()
	data, _ := os.ReadFile(h.out.Name())
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, data)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// testClaimRace: 16 processes claim the same item at once, 100 rounds
// (100 items, claimed in the same order by all): exactly one wins each.
func testClaimRace(t *testing.T, h Harness) {
	spec := h.New(t)
	e := h.open(t, spec)
	var items []string
	for i := range 100 {
		items = append(items, add(t, e, fmt.Sprintf("round %d", i)).ID)
	}
	hs, goFile := start(t, spec, "race", 16, func(int) []string { return []string{envArg + "=" + strings.Join(items, ",")} })
	release(t, goFile)
	wins := map[string][]int{}
	for i, hp := range hs {
		for _, line := range hp.wait(t) {
			f := strings.Fields(line)
			switch {
			case len(f) >= 2 && f[0] == "WIN":
				wins[f[1]] = append(wins[f[1]], i)
			case len(f) >= 2 && f[0] == "LOST":
			default:
				t.Fatalf("helper %d: %s", i, line)
			}
		}
	}
	all, _, _ := e.List(ctx)
	for _, it := range all {
		w := wins[it.ID]
		if len(w) != 1 {
			t.Fatalf("%s (%s): %d winners %v, want exactly one", it.ID, it.Text, len(w), w)
		}
		if it.Claim == nil || it.Claim.Session != fmt.Sprintf("p%02d", w[0]) {
			t.Fatalf("%s: the board says %+v, the winner was p%02d", it.ID, it.Claim, w[0])
		}
	}
}

// testWorkers: 32 workers claim --next over 200 items until none is
// ready; every item is claimed exactly once, and the item of a worker
// killed with SIGKILL is ready again once its lease ends.
func testWorkers(t *testing.T, h Harness) {
	spec := h.New(t)
	e := h.open(t, spec)
	var items []board.Item
	for i := range 200 {
		items = append(items, add(t, e, fmt.Sprintf("item %d", i)))
	}
	// The stuck worker takes one item, with a short lease, and hangs.
	stuck, goFile := start(t, spec, "stuck", 1, nil)
	release(t, goFile)
	var stuckID string
	waitFor(t, "the stuck worker's claim", func() bool {
		data, _ := os.ReadFile(stuck[0].out.Name())
		if f := strings.Fields(string(data)); len(f) >= 2 && f[0] == "CLAIM" {
			stuckID = f[1]
			return true
		}
		return len(data) > 0 && !strings.HasPrefix(string(data), "CLAIM")
	})
	if stuckID == "" {
		data, _ := os.ReadFile(stuck[0].out.Name())
		t.Fatalf("stuck worker: %s", data)
	}
	stuck[0].cmd.Process.Signal(syscall.SIGKILL)
	stuck[0].cmd.Wait()

	hs, goFile := start(t, spec, "worker", 31, nil)
	release(t, goFile)
	claimedBy := map[string]int{}
	for i, hp := range hs {
		for _, line := range hp.wait(t) {
			if line == "" {
				continue
			}
			f := strings.Fields(line)
			if len(f) != 2 || f[0] != "CLAIM" {
				t.Fatalf("worker %d: %s", i, line)
			}
			if prev, ok := claimedBy[f[1]]; ok {
				t.Fatalf("%s claimed twice, by workers %d and %d", f[1], prev, i)
			}
			claimedBy[f[1]] = i
		}
	}
	// The stuck item's lease (500 ms) may end before the workers are
	// done, and then one of them claimed it; otherwise it is ready again
	// once the lease ends.
	if _, ok := claimedBy[stuckID]; !ok {
		waitFor(t, "the killed worker's item to be ready again", func() bool {
			return slices.Contains(readyIDs(t, e), stuckID)
		})
		claimedBy[stuckID] = -1
	}
	for _, it := range items {
		if _, ok := claimedBy[it.ID]; !ok {
			t.Fatalf("%s (%s) was never claimed", it.ID, it.Text)
		}
	}
	if len(claimedBy) != len(items) {
		t.Fatalf("%d items claimed, want %d", len(claimedBy), len(items))
	}
}

// testNotes: 8 processes add notes to one item at once; every
// acknowledged note is on the item.
func testNotes(t *testing.T, h Harness) {
	spec := h.New(t)
	e := h.open(t, spec)
	it := add(t, e, "shared")
	hs, goFile := start(t, spec, "notes", 8, func(int) []string { return []string{envArg + "=10", "BOARDTEST_ITEM=" + it.ID} })
	release(t, goFile)
	var acked []string
	for i, hp := range hs {
		for _, line := range hp.wait(t) {
			text, ok := strings.CutPrefix(line, "ACK ")
			if !ok {
				t.Fatalf("helper %d: %s", i, line)
			}
			acked = append(acked, text)
		}
	}
	got, err := e.Get(ctx, it.ID)
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, n := range got.Notes {
		have = append(have, n.Text)
	}
	for _, a := range acked {
		if !slices.Contains(have, a) {
			t.Fatalf("acknowledged note %q lost; the item has %d notes", a, len(have))
		}
	}
	if len(acked) != 80 || len(have) != 80 {
		t.Fatalf("%d notes acknowledged, %d kept; want 80", len(acked), len(have))
	}
}
