package todostore

// platformSource polls on macOS: see pollSource for why not kqueue.
var platformSource eventSource = pollSource
