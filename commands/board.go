package commands

import (
	"context"
	"errors"
	"os"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/board/boardcmd"
)

// runBoard is /board: the same verbs as `todosh board` (boardcmd), as
// this session: a claimed item joins this session's list, linked to the
// board, and completing it there finishes it on the board.
func runBoard(x *call) error {
	var args []string
	for {
		w, ok, err := x.args.Next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		args = append(args, w.Value)
	}
	if len(args) > 0 && args[0] == "watch" {
		return errors.New("watch takes the terminal: run todosh board watch in another one")
	}
	getenv := x.env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	cwd := x.env.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	env := &boardcmd.Env{
		Cwd: cwd, Getenv: getenv, Out: x.env.Out, Err: x.env.Err,
		Who:  board.Who{Session: x.env.SessionID, Agent: "person"},
		Link: boardcmd.LinkInto(x.env.Store, x.env.SessionID, cwd, todolist.ByYou),
		Now:  x.env.Now,
	}
	env.Exe, _ = os.Executable()
	return boardcmd.Run(context.Background(), env, args)
}
