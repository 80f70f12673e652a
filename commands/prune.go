package commands

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/todosh/todosh/todolist"
)

// pruneShown is how many sessions /todo prune names before "and N more".
const pruneShown = 10

// yesWord confirms /todo prune without a question; a script must give it.
const yesWord = "--yes"

// pruneUsage ends the errors of a /todo prune that cannot be understood.
const pruneUsage = "usage: /todo prune N|N-M|all|older AGE [--yes], e.g. /todo prune 3-7, /todo prune older 30d; N as /todo list numbers the lists"

// pruneSet is the sessions a /todo prune would remove, and what it left
// out of the numbers typed.
type pruneSet struct {
	what    string    // how the person chose them: "3-7", "all", "older than 30d"
	rows    []listRow // todosh's own sessions, never the current one
	numbers []int     // each row's number in /todo list, or 0 when chosen by age or all
	skipped []string  // why some typed numbers are left out
	// still, when set, is asked again under each session's lock just
	// before it is removed whether the session is still one to prune
	// (its age may have changed while the question waited); false keeps
	// it, for the reason keptWhy.
	still   func(fs.FileInfo) bool
	keptWhy string
}

// errNoLongerChosen is what the check under the lock returns for a session
// that no longer fits the selection: it is kept, and said.
var errNoLongerChosen = errors.New("no longer chosen")

// runPrune implements /todo prune: it removes saved sessions of todosh's
// own store, chosen by the numbers /todo list shows or by age, after a
// confirmation (a question in a terminal, --yes in a script). The current
// session and other agents' lists are never removed.
func (r *Registry) runPrune(x *call) error {
	words, err := x.args.Words()
	if err != nil {
		return err
	}
	yes := len(words) > 0 && words[len(words)-1] == yesWord
	if yes {
		words = words[:len(words)-1]
	}
	set, err := r.pruneSelect(x.env, words)
	if err != nil {
		return err
	}
	if !yes && x.env.Ask == nil {
		return fmt.Errorf("not confirmed: in a script, add %s to remove %s (e.g. /todo prune %s %s)", yesWord, todolist.Plural(len(set.rows), "session"), strings.Join(words, " "), yesWord)
	}
	if !yes {
		if err := x.printFit(set.describe(x.env.now())); err != nil {
			return err
		}
		answer, err := x.env.Ask(fmt.Sprintf("remove %s for good? (y/N) ", todolist.Plural(len(set.rows), "saved session")))
		answer = strings.ToLower(strings.TrimSpace(answer))
		if err != nil || (answer != "y" && answer != "yes") {
			return x.print("Nothing removed\n")
		}
	}
	var removed, kept []string
	var failed []error
	var check func(fs.FileInfo) error
	if set.still != nil {
		check = func(info fs.FileInfo) error {
			if !set.still(info) {
				return errNoLongerChosen
			}
			return nil
		}
	}
	for _, row := range set.rows {
		err := x.env.Store.RemoveIf(row.ID, check)
		switch {
		case err == nil:
			removed = append(removed, row.ID)
		case errors.Is(err, errNoLongerChosen):
			kept = append(kept, row.ID)
		case errors.Is(err, fs.ErrNotExist):
			// Removed meanwhile by someone else: nothing left to do.
		default:
			failed = append(failed, err)
		}
	}
	r.forget(x.env, removed)
	if len(removed) > 0 {
		note := ""
		if len(set.skipped) > 0 {
			note = " (left out: " + strings.Join(set.skipped, " and ") + ")"
		}
		if err := x.printFit(fmt.Sprintf("Removed %s: %s%s\n", todolist.Plural(len(removed), "saved session"), nameSome(removed), note)); err != nil {
			return err
		}
	}
	if len(kept) > 0 {
		if err := x.print(fmt.Sprintf("Kept %s: %s (%s)\n", todolist.Plural(len(kept), "session"), nameSome(kept), set.keptWhy)); err != nil {
			return err
		}
	}
	if len(removed) == 0 && len(kept) == 0 && len(failed) == 0 {
		return x.print("Nothing removed: those sessions were already gone\n")
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %s not removed: %w", len(failed), todolist.Plural(len(set.rows), "session"), failed[0])
	}
	return nil
}

// pruneSelect resolves the words of /todo prune to sessions.
func (r *Registry) pruneSelect(env *Env, words []string) (pruneSet, error) {
	switch {
	case len(words) == 0:
		return pruneSet{}, fmt.Errorf("missing what to prune (%s)", pruneUsage)
	case words[0] == "all" && len(words) == 1:
		return ownRows(env, "all", "this session is todosh's only saved one", func(listRow) bool { return true })
	case words[0] == "older" && len(words) == 1:
		return pruneSet{}, fmt.Errorf("missing AGE after older (e.g. /todo prune older 30d; AGE is 12h, 30d or 2w)")
	case words[0] == "older" && len(words) == 2:
		d, err := parseAge(words[1])
		if err != nil {
			return pruneSet{}, err
		}
		cutoff := env.now().Add(-d)
		set, err := ownRows(env, "older than "+words[1], "no other saved session is older than "+words[1], func(row listRow) bool { return row.ModTime.Before(cutoff) })
		// The age is by the file's last change, which another process
		// may make while the question waits: checked again at removal.
		set.still = func(info fs.FileInfo) bool { return info.ModTime().Before(cutoff) }
		set.keptWhy = "changed since chosen, so no longer older than " + words[1]
		return set, err
	case len(words) == 1:
		rows, err := r.rows(env)
		if err != nil {
			return pruneSet{}, err
		}
		return pickRows(rows, words[0])
	}
	return pruneSet{}, fmt.Errorf("unexpected %q (%s)", strings.Join(words, " "), pruneUsage)
}

// ownRows is every saved session of todosh's own store but the current
// one that keep accepts; none says why there is nothing to prune.
func ownRows(env *Env, what, none string, keep func(listRow) bool) (pruneSet, error) {
	rows, err := storeRows(env)
	if err != nil {
		return pruneSet{}, err
	}
	set := pruneSet{what: what}
	for _, row := range rows {
		if row.ID != env.SessionID && keep(row) {
			set.rows = append(set.rows, row)
			set.numbers = append(set.numbers, 0)
		}
	}
	if len(set.rows) == 0 {
		return pruneSet{}, fmt.Errorf("nothing to prune: %s", none)
	}
	return set, nil
}

// pickRows resolves N or N-M against the numbering of /todo list, with
// llxprt-code's range checks. A single number that is this session or
// another agent's list is refused; a range leaves them out and says so.
func pickRows(rows []listRow, word string) (pruneSet, error) {
	head, tail, isRange := strings.Cut(word, "-")
	lo, ok := parseCount(head)
	if !ok {
		return pruneSet{}, fmt.Errorf("%q is not a list number or range (%s)", word, pruneUsage)
	}
	hi := lo
	if isRange {
		if hi, ok = parseCount(tail); !ok {
			return pruneSet{}, fmt.Errorf("%q is not a list number or range (%s)", word, pruneUsage)
		}
		if err := checkRange(word, lo, hi, true, "", len(rows), "no saved lists"); err != nil {
			return pruneSet{}, err
		}
	} else if lo < 1 || lo > len(rows) {
		return pruneSet{}, listOutOfRange(lo, len(rows))
	}
	set := pruneSet{what: word}
	var current, foreign, gone int
	for n := lo; n <= hi; n++ {
		row := rows[n-1]
		switch {
		case row.Current:
			current++
		case row.Source != "":
			foreign++
		case row.removed:
			gone++
		default:
			set.rows = append(set.rows, row)
			set.numbers = append(set.numbers, n)
		}
	}
	if !isRange {
		switch {
		case current > 0:
			return pruneSet{}, fmt.Errorf("list %d is this session: it is never pruned", lo)
		case foreign > 0:
			return pruneSet{}, fmt.Errorf("list %d is a list of %s: prune removes only todosh's own sessions, never other agents' files", lo, rows[lo-1].Source)
		case gone > 0:
			return pruneSet{}, fmt.Errorf("list %d was already removed", lo)
		}
	}
	if current > 0 {
		set.skipped = append(set.skipped, "this session")
	}
	if foreign > 0 {
		set.skipped = append(set.skipped, todolist.Plural(foreign, "list")+" of other agents")
	}
	if gone > 0 {
		set.skipped = append(set.skipped, todolist.Plural(gone, "session")+" already removed")
	}
	if len(set.rows) == 0 {
		return pruneSet{}, fmt.Errorf("nothing to prune in %s: it holds only %s", word, strings.Join(set.skipped, " and "))
	}
	return set, nil
}

// describe is what the confirmation question is about: the sessions, up
// to pruneShown of them with their age and counts, and what was skipped.
func (s pruneSet) describe(now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Prune %s (%s", todolist.Plural(len(s.rows), "saved session"), s.what)
	if len(s.skipped) > 0 {
		fmt.Fprintf(&b, "; leaving out %s", strings.Join(s.skipped, " and "))
	}
	b.WriteString("):\n")
	shown := s.rows[:min(len(s.rows), pruneShown)]
	cells := make([][4]string, len(shown))
	var widths [4]int
	for i, row := range shown {
		counts := "unreadable"
		if sess, err := row.Load(); err == nil {
			counts = countsText(sess.Todos)
		}
		num := ""
		if s.numbers[i] > 0 {
			num = strconv.Itoa(s.numbers[i])
		}
		cells[i] = [4]string{num, oneLine(row.ID), age(now, row.ModTime), counts}
		for k := range widths {
			widths[k] = max(widths[k], utf8.RuneCountInString(cells[i][k]))
		}
	}
	for _, c := range cells {
		line := "  "
		if widths[0] > 0 { // numbered by /todo list
			line += strings.Repeat(" ", widths[0]-len(c[0])) + c[0] + " "
		}
		line += pad(c[1], widths[1]) + "  " + pad(c[2], widths[2]) + "  " + c[3]
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	if len(s.rows) > len(shown) {
		fmt.Fprintf(&b, "  and %d more\n", len(s.rows)-len(shown))
	}
	return b.String()
}

// nameSome lists ids, at most pruneShown of them, then how many more.
func nameSome(ids []string) string {
	if len(ids) <= pruneShown {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:pruneShown], ", ") + fmt.Sprintf(" and %d more", len(ids)-pruneShown)
}

// maxAge bounds AGE, far below time.Duration's limit of 292 years.
const maxAge = 100 * 365 * 24 * time.Hour

// parseAge reads the AGE of /todo prune older AGE: a whole number of
// hours, days or weeks, "12h", "30d", "2w".
func parseAge(s string) (time.Duration, error) {
	units := map[byte]time.Duration{'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	bad := fmt.Errorf("age %q is not an age (a whole number of hours, days or weeks: 12h, 30d, 2w)", s)
	if len(s) < 2 {
		return 0, bad
	}
	unit, ok := units[s[len(s)-1]]
	n, valid := parseCount(s[:len(s)-1])
	if !ok || !valid || n < 1 {
		return 0, bad
	}
	if n > int(maxAge/unit) { // past it the duration would overflow
		return 0, fmt.Errorf("age %q is over 100 years", s)
	}
	return time.Duration(n) * unit, nil
}

// forget marks the pruned sessions in the remembered /todo list numbering,
// so that numbers keep meaning what the person saw and a pruned one is
// not chosen again.
func (r *Registry) forget(env *Env, ids []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.listing == nil || r.listing.store != env.Store.Dir || r.listing.sessionID != env.SessionID {
		return
	}
	gone := make(map[string]bool, len(ids))
	for _, id := range ids {
		gone[id] = true
	}
	for i := range r.listing.rows {
		if row := &r.listing.rows[i]; row.Source == "" && gone[row.ID] {
			row.removed = true
		}
	}
}
