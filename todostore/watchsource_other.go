//go:build !darwin

package todostore

// platformSource is fsnotify on the store directory.
var platformSource eventSource = notifySource
