package boardcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/board/files"
	"github.com/todosh/todosh/board/postgres"
	"github.com/todosh/todosh/todostore"
)

// LinkKey is the field of a todo (kept in todolist.Todo.Extra, which
// every rewrite keeps) that links it to a board item.
const LinkKey = "board"

// Link is what a linked todo says of its board item: the item's id and
// the board's Where (a directory, or a URL without its password).
type Link struct {
	ID    string `json:"id"`
	Board string `json:"board"`
}

// LinkOf returns a todo's link to a board item, if it has one.
func LinkOf(t todolist.Todo) (Link, bool) {
	raw, ok := t.Extra[LinkKey]
	if !ok {
		return Link{}, false
	}
	var l Link
	if json.Unmarshal(raw, &l) != nil || l.ID == "" || l.Board == "" {
		return Link{}, false
	}
	return l, true
}

// LinkInto returns an Env.Link that appends a claimed item to session id's
// list, in progress and linked to the board; a todo already linked to it
// stays, in progress again if it was closed. by is the change's author.
func LinkInto(store *todostore.Store, id, cwd string, by todolist.Author) func(board.Item, string) error {
	return func(it board.Item, where string) error {
		raw, err := json.Marshal(Link{ID: it.ID, Board: where})
		if err != nil {
			return err
		}
		_, _, err = store.Commit(id, by, func(s *todostore.Session) error {
			for i, t := range s.Todos {
				if l, ok := LinkOf(t); ok && l.ID == it.ID && l.Board == where {
					// Claimed again: the todo is worked on again.
					if !t.IsOpen() {
						s.Todos[i].Status = todolist.InProgress
					}
					return nil
				}
			}
			if s.Cwd == "" {
				s.Cwd = cwd
			}
			s.Todos = append(s.Todos, todolist.Todo{
				Content: it.Text, Status: todolist.InProgress,
				Extra: todolist.Extra{LinkKey: raw},
			})
			s.Note("claimed board item " + it.ID)
			return nil
		})
		return err
	}
}

// Follower marks a board item done when the todo linked to it completes
// in a session this process writes (the shell, todosh mcp, a hook), and
// gives the claim back when the todo is cancelled.
type Follower struct {
	Getenv func(string) string
	// Err receives the one line of a board item that could not be
	// marked done.
	Err io.Writer

	// store is the store Follow chained into: its work logs give a
	// finished item its receipt.
	store *todostore.Store

	mu      sync.Mutex
	engines map[string]board.Engine
	acted   map[Link]todolist.Status
}

// Follow chains f into store's AfterWrite: after every write of a session
// whose list has a linked todo, each completed one is finished on its
// board. Call it after Store.Watch, which chains itself the same way.
func Follow(store *todostore.Store, f *Follower) {
	f.store = store
	prev := store.AfterWrite
	store.AfterWrite = func(id string, data []byte) {
		if prev != nil {
			prev(id, data)
		}
		if !bytes.Contains(data, []byte(`"`+LinkKey+`"`)) {
			return
		}
		sess, err := todostore.Decode(data)
		if err != nil {
			return
		}
		f.finish(id, sess.Todos)
	}
}

func (f *Follower) finish(sessionID string, todos []todolist.Todo) {
	host, _ := os.Hostname()
	who := board.Who{Session: sessionID, Agent: "todosh", Host: host}
	for _, t := range todos {
		l, ok := LinkOf(t)
		if !ok {
			continue
		}
		// Act once per closing: a todo open again (claimed again) is
		// forgotten, so its next closing acts again.
		f.mu.Lock()
		if f.acted == nil {
			f.acted = map[Link]todolist.Status{}
		}
		last, open := f.acted[l], t.IsOpen()
		if open {
			delete(f.acted, l)
		} else {
			f.acted[l] = t.Status
		}
		f.mu.Unlock()
		if open || last == t.Status {
			continue
		}
		if t.Status == todolist.Cancelled {
			// Cancelled on the list: the claim is given back, for
			// someone else to take.
			if err := f.release(who, l); err != nil {
				fmt.Fprintf(f.Err, "todosh board: %s is cancelled on this list but still claimed on the board: %v\n", l.ID, err)
			}
			continue
		}
		if err := f.finishOne(who, l, t, f.receiptOf(sessionID, t)); err != nil {
			fmt.Fprintf(f.Err, "todosh board: %s is done on this list but not on the board: %v\n", l.ID, err)
		}
	}
}

func (f *Follower) finishOne(who board.Who, l Link, t todolist.Todo, receipt json.RawMessage) error {
	ctx := context.Background()
	eng, err := f.engine(ctx, l.Board)
	if err != nil {
		return err
	}
	_, _, err = eng.Update(ctx, l.ID, func(it *board.Item, now time.Time, get func(string) (board.Item, bool)) error {
		if it.Status == board.Done {
			return nil
		}
		if err := board.Finish(who, board.Done, t.Evidence)(it, now, get); err != nil {
			return err
		}
		if receipt != nil {
			it.Receipt = receipt
		}
		return nil
	})
	return err
}

func (f *Follower) release(who board.Who, l Link) error {
	ctx := context.Background()
	eng, err := f.engine(ctx, l.Board)
	if err != nil {
		return err
	}
	_, _, err = eng.Update(ctx, l.ID, func(it *board.Item, now time.Time, get func(string) (board.Item, bool)) error {
		if it.Status != board.Claimed || it.Claim == nil || !it.Claim.Same(who) {
			return nil // not ours any more: nothing to give back
		}
		return board.Release(who)(it, now, get)
	})
	return err
}

// boardReceipt is a board item's receipt: what the session that finished
// it was seen doing for it (issue 26), from that session's work log.
type boardReceipt struct {
	Session  string `json:"session"`
	Edits    int    `json:"edits,omitempty"`
	Commands int    `json:"commands,omitempty"`
	Last     string `json:"last,omitempty"`
}

// receiptOf is the receipt of todo t of session id: nil when the work log
// shows no successful edit or command for it (done as reported), or
// cannot be read.
func (f *Follower) receiptOf(id string, t todolist.Todo) json.RawMessage {
	if f.store == nil || t.UID == "" {
		return nil
	}
	r, err := f.store.Receipts(id, false)
	if err != nil {
		return nil
	}
	iw := r.Sum.Items[t.UID]
	if !iw.Receipt() {
		return nil
	}
	b, err := json.Marshal(boardReceipt{Session: id, Edits: iw.Edits, Commands: iw.Commands, Last: iw.Last})
	if err != nil {
		return nil
	}
	return b
}

// engine opens the board a link names: a files board by its directory,
// PostgreSQL when $TODOSH_BOARD_URL is the URL the link names.
func (f *Follower) engine(ctx context.Context, where string) (board.Engine, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.engines[where]; ok {
		return e, nil
	}
	var (
		e   board.Engine
		err error
	)
	switch {
	case filepath.IsAbs(where):
		e = files.Open(where)
	case f.Getenv != nil && f.Getenv(URLEnv) != "" && postgres.Redact(f.Getenv(URLEnv)) == where:
		e, err = postgres.Open(ctx, f.Getenv(URLEnv))
	default:
		return nil, fmt.Errorf("board %s: set %s to its URL", where, URLEnv)
	}
	if err != nil {
		return nil, err
	}
	if f.engines == nil {
		f.engines = map[string]board.Engine{}
	}
	f.engines[where] = e
	return e, nil
}
