// Command medians reads `go test -bench` output on stdin (several runs of
// each benchmark, -count N) and prints, for each benchmark, the median of
// each of its metrics over the runs: the figures docs/performance.md
// gives. The output goes on to stdout unchanged first, so a reader sees
// every run.
package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

func main() {
	type bench struct {
		name    string
		metrics map[string][]float64
		order   []string
	}
	var benches []*bench
	byName := map[string]*bench{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := sc.Text()
		fmt.Println(line)
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		b := byName[f[0]]
		if b == nil {
			b = &bench{name: f[0], metrics: map[string][]float64{}}
			byName[f[0]] = b
			benches = append(benches, b)
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			unit := f[i+1]
			if _, ok := b.metrics[unit]; !ok {
				b.order = append(b.order, unit)
			}
			b.metrics[unit] = append(b.metrics[unit], v)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "medians:", err)
		os.Exit(1)
	}
	fmt.Println("\nmedians:")
	for _, b := range benches {
		var parts []string
		for _, unit := range b.order {
			if unit == "ns/op" {
				continue
			}
			v := slices.Clone(b.metrics[unit])
			slices.Sort(v)
			m := v[len(v)/2]
			if len(v)%2 == 0 {
				m = (v[len(v)/2-1] + v[len(v)/2]) / 2
			}
			parts = append(parts, fmt.Sprintf("%s %.4g", unit, m))
		}
		fmt.Printf("%s (%d runs): %s\n", b.name, len(b.metrics[b.order[0]]), strings.Join(parts, ", "))
	}
}
