module github.com/todosh/todosh

go 1.26.8

require (
	github.com/chzyer/readline v1.5.1
	github.com/creack/pty v1.1.24
	github.com/fsnotify/fsnotify v1.10.1
	github.com/google/shlex v0.0.0-20191202100458-e7afc7fbc510
	golang.org/x/sys v0.13.0
)

require github.com/rivo/uniseg v0.4.7 // indirect
