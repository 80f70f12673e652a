package boardcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/todostore"
)

// Tools are the board tools of todosh mcp (todotools.Board): the board of
// the session's checkout (or $TODOSH_BOARD_URL), claimed and finished as
// the session, a claimed item put on the session's list.
type Tools struct {
	Getenv func(string) string
	// Cwd is used when the session records none.
	Cwd string
}

func (t *Tools) open(ctx context.Context, s agent.Session) (board.Engine, board.Who, error) {
	cwd := s.Cwd
	if cwd == "" {
		cwd = t.Cwd
	}
	url := ""
	if t.Getenv != nil {
		url = t.Getenv(URLEnv)
	}
	host, _ := os.Hostname()
	who := board.Who{Session: s.ID, Agent: "agent", Host: host}
	eng, err := Open(ctx, url, cwd)
	return eng, who, err
}

// Ready lists the ready items, one line each.
func (t *Tools) Ready(s agent.Session) (string, error) {
	ctx := context.Background()
	eng, _, err := t.open(ctx, s)
	if err != nil {
		return "", err
	}
	defer eng.Close()
	ready, _, err := eng.Ready(ctx)
	if err != nil {
		return "", err
	}
	if len(ready) == 0 {
		return "No item of the board is ready.", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d ready on the board (id: text):\n", len(ready))
	for _, it := range ready {
		fmt.Fprintf(&b, "%s: %s\n", it.ID, todoview.QuoteForModel(it.Text))
	}
	return b.String(), nil
}

// Claim claims an item (or the next ready one) and puts it on the
// session's list.
func (t *Tools) Claim(s agent.Session, id string, next bool, lease string) (string, error) {
	ctx := context.Background()
	d, err := board.ParseLease(lease)
	if err != nil {
		return "", err
	}
	eng, who, err := t.open(ctx, s)
	if err != nil {
		return "", err
	}
	defer eng.Close()
	var it board.Item
	if next {
		it, err = eng.ClaimNext(ctx, who, d)
	} else {
		it, err = eng.Claim(ctx, id, who, d)
	}
	if errors.Is(err, board.ErrNoneReady) {
		return "", errors.New("no item of the board is ready")
	}
	if err != nil {
		return "", err
	}
	if err := LinkInto(s.Store, s.ID, s.Cwd, todolist.ByAgent)(it, eng.Where()); err != nil {
		return "", fmt.Errorf("claimed %s, but could not put it on your list: %w", it.ID, err)
	}
	return fmt.Sprintf("Claimed %s until %s: %s. It is on your todo list in progress; "+
		"complete it there (or call board_done) when it is done.", it.ID, it.Claim.Until.Format(time.RFC3339), todoview.QuoteForModel(it.Text)), nil
}

// Done finishes a board item and completes the todo linked to it.
func (t *Tools) Done(s agent.Session, id, evidence string) (string, error) {
	ctx := context.Background()
	eng, who, err := t.open(ctx, s)
	if err != nil {
		return "", err
	}
	defer eng.Close()
	it, _, err := eng.Update(ctx, id, board.Finish(who, board.Done, evidence))
	if err != nil {
		return "", err
	}
	where := eng.Where()
	_, _, err = s.Store.Commit(s.ID, todolist.ByAgent, func(sess *todostore.Session) error {
		for i, td := range sess.Todos {
			if l, ok := LinkOf(td); ok && l.ID == id && l.Board == where && td.IsOpen() {
				sess.Todos[i].Status = todolist.Completed
				if evidence != "" {
					sess.Todos[i].Evidence = evidence
				}
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("%s is done on the board, but your list could not be changed: %w", id, err)
	}
	return fmt.Sprintf("Done on the board: %s %s.", it.ID, todoview.QuoteForModel(it.Text)), nil
}
