package todostore

// MakeSessions is makeSessions for the external tests (foreign_bench_test.go).
var MakeSessions = makeSessions
