// Command hello is the start-up floor: a static Go program that prints a
// line and exits, built beside todosh by BenchmarkStartup.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
