package e2e_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/scripts")

// TestGoldenScripts runs each testdata/scripts/NAME.in through todosh's
// stdin and compares stdout, stderr and the exit status with NAME.golden.
// Run with -update to accept new output.
func TestGoldenScripts(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("..", "testdata", "scripts", "*.in"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no scripts found: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".in")
		t.Run(name, func(t *testing.T) {
			script, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			h := newHome(t)
			r := h.script(t, h.dir, string(script), "--session", "golden")
			got := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
			golden := strings.TrimSuffix(in, ".in") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run with -update to accept):\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
		})
	}
}
