//go:build !race

package testenv

// Race is true when the tests were built with -race; see BuildFlags.
const Race = false
