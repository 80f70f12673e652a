package commands

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/todosh/todosh/foreignlists"
	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// pageSize is how many rows /todo list shows per page.
const pageSize = 20

// listRow is one saved list as /todo list numbers it, before it is parsed:
// only the rows of the page shown are loaded.
type listRow struct {
	// Source is "" for todosh's own sessions; lists read from other agents
	// (Claude, Qwen, llxprt) name their agent and are marked with it.
	Source  string
	ID      string
	Path    string
	ModTime time.Time
	Current bool
	// removed is set by /todo prune on the rows of the remembered
	// listing, so their numbers are not reused for another session.
	removed bool
	// mirror is, for another agent's list, the todosh session its hooks
	// keep of the same list (foreignlists.ForeignEntry.Mirror); attached the
	// todosh session that ran the agent in that session of its own
	// (todostore.Store.AttachedTo), which keeps the same list too.
	mirror, attached string
	// load parses the row's list; it is called only for rows shown or
	// chosen. One function serves every row of a source, so listing
	// 10 000 sessions allocates no closure per row.
	load func(listRow) (*todostore.Session, error)
}

// Load parses the list of the row.
func (r listRow) Load() (*todostore.Session, error) { return r.load(r) }

// rowSource finds saved lists without parsing them. storeRows reads
// todosh's store; sources for other agents' todo files are more
// rowSources on the Registry, and their rows are merged newest first.
type rowSource func(env *Env) ([]listRow, error)

// storeRows lists todosh's session files, newest first, unparsed.
func storeRows(env *Env) ([]listRow, error) {
	entries, err := env.Store.List()
	if err != nil {
		return nil, err
	}
	load := func(r listRow) (*todostore.Session, error) {
		return env.Store.LoadShown(todostore.Entry{ID: r.ID, Path: r.Path, ModTime: r.ModTime})
	}
	rows := make([]listRow, len(entries))
	for i, e := range entries {
		rows[i] = listRow{ID: e.ID, Path: e.Path, ModTime: e.ModTime, load: load}
	}
	return rows, nil
}

// foreignRows lists the lists other agents saved under env.Home, unparsed.
// A directory that cannot be read is reported on env.Err and never stops
// the listing.
func foreignRows(env *Env) ([]listRow, error) {
	if env.Home == "" {
		return nil, nil
	}
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	entries, err := foreignlists.ForeignEntries(env.Home, getenv)
	if err != nil && env.Err != nil {
		fmt.Fprintf(env.Err, "/todo list: %v\n", err)
	}
	load := func(r listRow) (*todostore.Session, error) {
		todos, err := foreignlists.LoadForeign(foreignlists.ForeignEntry{Source: r.Source, Path: r.Path, Name: r.ID, ModTime: r.ModTime})
		if err != nil {
			return nil, err
		}
		return &todostore.Session{Todos: todos}, nil
	}
	rows := make([]listRow, len(entries))
	for i, e := range entries {
		rows[i] = listRow{Source: e.Source, ID: e.Name, Path: e.Path, ModTime: e.ModTime, mirror: e.Mirror(), load: load}
		if env.Store != nil {
			rows[i].attached = env.Store.AttachedTo(e.Mirror())
		}
	}
	return rows, nil
}

// dropMirrored leaves out the other agents' lists that a todosh session
// of rows already keeps (the agent's hooks keep claude-<id> for Claude's
// list <id>; `todosh --agent claude` keeps its own session attached to
// Claude's session <id>), so one list is shown once, as the session that
// can be resumed and reverted; unless the agent's file changed after the
// session did (hooks turned off since), when both are shown.
func dropMirrored(rows []listRow) []listRow {
	own := map[string]time.Time{}
	for _, r := range rows {
		if r.Source == "" {
			own[r.ID] = r.ModTime
		}
	}
	kept := func(r listRow, id string) bool {
		at, ok := own[id]
		return id != "" && ok && !r.ModTime.After(at)
	}
	return slices.DeleteFunc(rows, func(r listRow) bool {
		return r.Source != "" && (kept(r, r.mirror) || kept(r, r.attached))
	})
}

// gatherRows numbers the saved lists: row 1 is the current session (even
// before it has a file), then every other list newest first.
func gatherRows(env *Env, sources []rowSource) ([]listRow, error) {
	store, id := env.Store, env.SessionID
	cur := listRow{ID: id, Path: store.Path(id), Current: true, load: func(r listRow) (*todostore.Session, error) {
		sess, err := store.LoadOrNew(r.ID)
		if err == nil && len(sess.Todos) == 0 {
			if l, ok := store.LastList(r.ID); ok {
				sess.Todos, sess.Archived = l.Todos, true
			}
		}
		return sess, err
	}}
	found := make([][]listRow, len(sources))
	total := 1
	for i, src := range sources {
		var err error
		if found[i], err = src(env); err != nil {
			return nil, err
		}
		total += len(found[i])
	}
	rows := make([]listRow, 1, total)
	rows[0] = cur
	for _, part := range found {
		for _, r := range part {
			if r.Source == "" && r.ID == id {
				rows[0].ModTime = r.ModTime
				continue
			}
			rows = append(rows, r)
		}
	}
	rows = dropMirrored(rows)
	if len(sources) > 1 {
		rest := rows[1:]
		sort.SliceStable(rest, func(i, j int) bool { return rest[i].ModTime.After(rest[j].ModTime) })
	}
	return rows, nil
}

// listing is the numbering of the last /todo list, kept so that /todo
// load N loads the row N the person saw.
type listing struct {
	store     string // Store.Dir, so a listing of another store is never reused
	sessionID string
	rows      []listRow
}

func (r *Registry) remember(env *Env, rows []listRow) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.listing = &listing{store: env.Store.Dir, sessionID: env.SessionID, rows: rows}
}

// rows returns the numbering of the last /todo list of this session, or a
// fresh one if there was none.
func (r *Registry) rows(env *Env) ([]listRow, error) {
	r.mu.Lock()
	l := r.listing
	r.mu.Unlock()
	if l != nil && l.store == env.Store.Dir && l.sessionID == env.SessionID {
		return l.rows, nil
	}
	return gatherRows(env, r.sources)
}

// runList implements /todo list [PAGE]: one page of rows, then, in a
// terminal, the question which one to load.
func (r *Registry) runList(x *call) error {
	page := 1
	if w, ok, err := x.args.Next(); err != nil {
		return err
	} else if ok {
		n, valid := parseCount(w.Value)
		if !valid || n < 1 {
			return fmt.Errorf("page %q is not a page number (e.g. %s)", w.Value, x.cmd.example)
		}
		page = n
	}
	if err := x.noMoreArgs(); err != nil {
		return err
	}
	rows, err := gatherRows(x.env, r.sources)
	if err != nil {
		return err
	}
	pages := (len(rows) + pageSize - 1) / pageSize
	if page > pages {
		return pageOutOfRange(page, pages, "the saved lists fill", "/todo list")
	}
	r.remember(x.env, rows)
	if err := x.printFit(renderPage(rows, page, x.env.now(), x.env.width())); err != nil {
		return err
	}
	if x.env.Ask == nil || len(rows) < 2 {
		return nil
	}
	answer, err := x.env.Ask("load which list? (number, Enter to cancel) ")
	answer = strings.TrimSpace(answer)
	if err != nil || answer == "" {
		return nil // Enter, Ctrl-C or Ctrl-D: nothing to load
	}
	n, valid := parseCount(answer)
	if !valid {
		return fmt.Errorf("%q is not a list number (%s)", answer, span("", len(rows)))
	}
	return r.pickRow(x, rows, n)
}

// renderPage is the text of one page of /todo list. Only the lists of
// this page are parsed; columns are aligned within the page.
func renderPage(rows []listRow, page int, now time.Time, cols int) string {
	pages := (len(rows) + pageSize - 1) / pageSize
	first := (page - 1) * pageSize
	last := min(first+pageSize, len(rows))
	cells := make([][6]string, 0, last-first)
	var widths [6]int
	for i := first; i < last; i++ {
		sess, err := rows[i].Load()
		c := rowCells(i+1, rows[i], sess, err, now)
		for k := range widths {
			widths[k] = max(widths[k], textwidth.Width(c[k]))
		}
		cells = append(cells, c)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Saved todo lists (%s; * is this session, then newest first):\n", todolist.Plural(len(rows), "list"))
	for _, c := range cells {
		num := strings.Repeat(" ", widths[0]-len(c[0])) + c[0]
		line := num + " " + pad(c[1], widths[1]) + "  " + pad(c[2], widths[2]) + "  " + pad(c[3], widths[3]) + "  " + pad(c[4], widths[4]) + "  " + c[5]
		// A row too wide for the terminal hangs under the age column on
		// every row alike (FitLines would take the blank mark of "2  id"
		// for the gap before the second column).
		b.WriteString(textwidth.FitLineAt(strings.TrimRight(line, " "), cols, widths[0]+1+widths[1]+2))
	}
	b.WriteString(pageLine(page, pages, "/todo list"))
	return b.String()
}

// pageLine is the footer of a paged listing: "Page 1 of 3; next: /todo
// list 2", or nothing when there is one page.
func pageLine(page, pages int, cmd string) string {
	switch {
	case pages <= 1:
		return ""
	case page < pages:
		return fmt.Sprintf("Page %d of %d; next: %s %d\n", page, pages, cmd, page+1)
	}
	return fmt.Sprintf("Page %d of %d\n", page, pages)
}

// itemWidth caps the item column of /todo list so a row stays readable.
const itemWidth = 40

// rowCells are the columns of one /todo list row: the number with its
// mark, the session id (for --session; another agent's file name), the age, what the list holds (counts by status, and its first open
// item or its first item), and the session's directory. A list that could
// not be read says so, with the reason and its path.
func rowCells(num int, r listRow, sess *todostore.Session, err error, now time.Time) [6]string {
	mark := " "
	if r.Current {
		mark = "*"
	}
	var counts, item, where string
	if err != nil {
		var corrupt *todostore.CorruptError
		reason := err
		if errors.As(err, &corrupt) {
			reason = corrupt.Err
		}
		counts, item, where = "unreadable", plainLimit(reason.Error()), r.Path
	} else {
		counts, item, where = countsText(sess.Todos), firstItem(sess.Todos), sess.Cwd
		if sess.Archived {
			counts = "empty; archived: " + counts
		}
		if r.Source != "" {
			where = r.Path // other agents' files record no directory
		}
	}
	if r.Source != "" {
		item = "[" + r.Source + "] " + item
	}
	return [6]string{strconv.Itoa(num) + mark, oneLine(r.ID), age(now, r.ModTime), counts, textwidth.Truncate(todolist.ShortLine(item, 0), itemWidth), oneLine(where)}
}

// countsText is the counts of a list by status, zeros left out: "1 done,
// 1 in progress, 2 pending".
func countsText(todos []todolist.Todo) string {
	c := todolist.CountTodos(todos)
	if c.Total == 0 {
		return "empty"
	}
	var parts []string
	for _, p := range []struct {
		n    int
		name string
	}{{c.Completed, "done"}, {c.InProgress, "in progress"}, {c.Pending, "pending"}, {c.Cancelled, "cancelled"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.name))
		}
	}
	return strings.Join(parts, ", ")
}

// firstItem is what a row shows of a list: its first open item, or its
// first item when all are done.
func firstItem(todos []todolist.Todo) string {
	for _, t := range todos {
		if t.IsOpen() {
			return t.Content
		}
	}
	if len(todos) > 0 {
		// Said as done, so it does not read as the next thing to do.
		return "all done: " + todos[0].Content
	}
	return ""
}

// age says how long ago t was, coarsely: "just now", "3 min ago", "2 h
// ago", "1 day ago", "5 days ago". A time in the future (clock skew) is
// "just now"; an unknown time (a session not saved yet) is "not saved".
func age(now, t time.Time) string {
	if t.IsZero() {
		return "not saved"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", d/time.Minute)
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", d/time.Hour)
	case d < 48*time.Hour:
		return "1 day ago"
	}
	return fmt.Sprintf("%d days ago", d/(24*time.Hour))
}

// pad fills s with spaces to n characters (not bytes), for the columns.
func pad(s string, n int) string { return textwidth.Pad(s, n) }

// runLoad implements /todo load N.
func (r *Registry) runLoad(x *call) error {
	w, ok, err := x.args.Next()
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("missing list number (e.g. %s; /todo list shows the numbers)", x.cmd.example)
	}
	if err := x.noMoreArgs(); err != nil {
		return err
	}
	n, valid := parseCount(w.Value)
	if !valid {
		return fmt.Errorf("list number %q is not a number (e.g. %s; /todo list shows the numbers)", w.Value, x.cmd.example)
	}
	rows, err := r.rows(x.env)
	if err != nil {
		return err
	}
	return r.loadRow(x, rows, n)
}

// pickRow is the list the person picked in /todo list: an agent's own
// list that its hooks keep is opened as itself (SwitchTo), so what the
// person changes reaches the agent; any other list is loaded (loadRow).
func (r *Registry) pickRow(x *call, rows []listRow, n int) error {
	if n >= 1 && n <= len(rows) && x.env.CanSwitch && !rows[n-1].Current && !rows[n-1].removed {
		row := rows[n-1]
		if src, err := row.Load(); err == nil && agentMirror(row, src) {
			if err := x.print(fmt.Sprintf("Opening session %s, the list %s keeps through its hooks: what you change here reaches it at its next prompt "+
				"(/todo load %d copies it instead)\n", row.ID, src.Agent.Kind, n)); err != nil {
				return err
			}
			return &SwitchTo{ID: row.ID}
		}
	}
	return r.loadRow(x, rows, n)
}

// agentMirror reports whether row is an agent's own list that its hooks
// keep in todosh's store (`todosh hooks install`): a session attached to
// the agent's session, with the hooks' state.
func agentMirror(row listRow, sess *todostore.Session) bool {
	return row.Source == "" && sess.Agent != nil && sess.Hooks != nil && row.ID == todostore.MirrorID(sess.Agent.Kind, sess.Agent.Session)
}

// loadRow copies list n of rows into the current session; the current
// list, if any, goes to the archive. The source file is only read.
func (r *Registry) loadRow(x *call, rows []listRow, n int) error {
	if n < 1 || n > len(rows) {
		return listOutOfRange(n, len(rows))
	}
	row := rows[n-1]
	if row.removed {
		return fmt.Errorf("list %d was removed by /todo prune (/todo list shows what is left)", n)
	}
	src, err := row.Load()
	if err != nil {
		return fmt.Errorf("list %d cannot be read: %w", n, err)
	}
	if row.Current && !src.Archived {
		return x.print(fmt.Sprintf("List %d is this session's list: nothing to load\n", n))
	}
	if len(src.Todos) == 0 {
		return fmt.Errorf("list %d is empty: nothing to load (this session's list is unchanged)", n)
	}
	var replaced int
	sess, err := x.update(func(s *todostore.Session) error {
		replaced = len(s.Todos)
		s.ArchiveTodos("replaced by load")
		s.Todos = todolist.CloneTodos(src.Todos)
		if !row.Current {
			todolist.ClearUIDs(s.Todos) // another session's ids mean nothing here
		}
		from := row.ID
		if row.Source != "" {
			from = row.Source + " " + row.ID
		}
		s.Note("loaded list from " + from)
		return nil
	})
	if err != nil {
		return err
	}
	note := fmt.Sprintf("Loaded list %d (session %s, %s)", n, row.ID, todolist.Plural(len(src.Todos), "todo"))
	if row.Source != "" {
		note = fmt.Sprintf("Loaded list %d (%s %s, %s)", n, row.Source, row.ID, todolist.Plural(len(src.Todos), "todo"))
	}
	if agentMirror(row, src) {
		note = fmt.Sprintf("Loaded a copy of list %d (session %s, %s): what you change here does not reach %s; "+
			"todosh --session %s opens its own list", n, row.ID, todolist.Plural(len(src.Todos), "todo"), src.Agent.Kind, row.ID)
	}
	if replaced > 0 {
		note += fmt.Sprintf("; the previous list (%s) is kept in this session's history: /todo revert brings it back", todolist.Plural(replaced, "todo"))
	}
	return x.printList(note, sess)
}
