package todolist

import (
	"testing"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 10240: "10,240", 1234567: "1,234,567", -1234: "-1,234",
		1_000_000_000_000: "1,000,000,000,000", -9223372036854775808: "-9,223,372,036,854,775,808"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
