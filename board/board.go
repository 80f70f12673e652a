// Package board is todosh's shared board: a project's list of items that
// sessions, agents and people take work from (docs/board.md). It holds the
// model (items, claims, leases), its rules as pure functions, and the
// Engine interface; the engines live in board/files (in the repository,
// synced by git) and board/postgres (a live fleet). The same tests
// (board/boardtest) run against both.
package board

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Status is where an item is in its life.
type Status string

// The statuses of an item.
const (
	Open    Status = "open"
	Claimed Status = "claimed"
	Done    Status = "done"
	Dropped Status = "dropped"
)

// Limits of an item, checked by Check.
const (
	MaxText     = 1000
	MaxNote     = 4000
	MaxNotes    = 200
	MaxBlocked  = 50
	MaxEvidence = 4000
	// MaxLease bounds a claim's lease: a claim is work in progress, not
	// ownership.
	MaxLease = 7 * 24 * time.Hour
	// DefaultLease is a claim's lease when none is given.
	DefaultLease = time.Hour
)

// Who names a claimant: the session (todosh's session id, or the person's
// name), the agent working in it ("person" for a person) and the host.
type Who struct {
	Session string `json:"session"`
	Agent   string `json:"agent,omitempty"`
	Host    string `json:"host,omitempty"`
}

// Same reports whether two claimants are the same session on the same host.
func (w Who) Same(o Who) bool { return w.Session == o.Session && w.Host == o.Host }

// String is how a claimant is shown: session@host.
func (w Who) String() string {
	if w.Host == "" {
		return w.Session
	}
	return w.Session + "@" + w.Host
}

// Claim is who took an item and until when their lease runs.
type Claim struct {
	Who
	At    time.Time `json:"at"`
	Until time.Time `json:"until"`
}

// Note is one note on an item; notes are only ever added, so concurrent
// edits and merges keep every one.
type Note struct {
	At   time.Time `json:"at"`
	By   string    `json:"by"`
	Text string    `json:"text"`
}

// Item is one entry of the board.
type Item struct {
	ID        string   `json:"id"`
	Text      string   `json:"text"`
	Status    Status   `json:"status"`
	BlockedBy []string `json:"blockedBy,omitempty"`
	// Claim is the current or last claim; it stays on a done item to say
	// who did it.
	Claim    *Claim `json:"claim,omitempty"`
	Notes    []Note `json:"notes,omitempty"`
	Evidence string `json:"evidence,omitempty"`
	// Receipt is the proof of work of issue 26 ("Progress you can
	// believe"), kept as the receipt package writes it; nil until then.
	Receipt json.RawMessage `json:"receipt,omitempty"`
	// Lost are claims a git merge gave to another claimant (docs/board.md
	// "Merging"); their claimant is told at its next board command.
	Lost    []Claim   `json:"lostClaims,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// Clone returns a deep copy of it.
func (it Item) Clone() Item {
	c := it
	c.BlockedBy = slices.Clone(it.BlockedBy)
	c.Notes = slices.Clone(it.Notes)
	c.Lost = slices.Clone(it.Lost)
	c.Receipt = slices.Clone(it.Receipt)
	if it.Claim != nil {
		cl := *it.Claim
		c.Claim = &cl
	}
	return c
}

// Leased reports whether the item is claimed and its lease still runs at now.
func (it *Item) Leased(now time.Time) bool {
	return it.Status == Claimed && it.Claim != nil && now.Before(it.Claim.Until)
}

// Closed reports whether the item is done or dropped, which unblocks what
// waits on it.
func (it *Item) Closed() bool { return it.Status == Done || it.Status == Dropped }

// Errors a board call returns; test them with errors.Is.
var (
	ErrNotFound  = errors.New("no such item")
	ErrNoneReady = errors.New("no item is ready")
	ErrClaimed   = errors.New("already claimed")
)

// ClaimedError is a claim lost to another claimant: "already claimed by
// SESSION until TIME". It matches ErrClaimed.
type ClaimedError struct {
	ID    string
	Claim Claim
}

func (e *ClaimedError) Error() string {
	return fmt.Sprintf("%s: already claimed by %s until %s", e.ID, e.Claim.Who, e.Claim.Until.Local().Format(time.DateTime))
}

// Is makes errors.Is(err, ErrClaimed) true.
func (e *ClaimedError) Is(target error) bool { return target == ErrClaimed }

// NewID returns an id that does not collide across machines: 40 random
// bits in lower-case base32, 8 characters.
func NewID() string {
	var b [5]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return strings.ToLower(base32.StdEncoding.EncodeToString(b[:]))
}

// ValidID checks an item id's syntax: 1-40 characters of [a-z0-9-], so it
// is always a safe file name.
func ValidID(id string) error {
	if id == "" || len(id) > 40 {
		return fmt.Errorf("item id %q: want 1-40 characters", id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("item id %q: only a-z, 0-9 and - are allowed", id)
		}
	}
	return nil
}

// ParseLease reads a lease such as "30m" or "2h"; zero, negative and
// over-long leases are refused.
func ParseLease(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("lease %q: want a duration such as 30m or 2h", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("lease %q: must be positive", s)
	}
	if d > MaxLease {
		return 0, fmt.Errorf("lease %q: at most %s", s, MaxLease)
	}
	return d, nil
}

// CheckLease refuses a lease ParseLease would refuse.
func CheckLease(d time.Duration) error {
	if d <= 0 || d > MaxLease {
		return fmt.Errorf("lease %s: must be positive and at most %s", d, MaxLease)
	}
	return nil
}

// Check validates one item on its own: id, text, status, sizes.
func Check(it *Item) error {
	if err := ValidID(it.ID); err != nil {
		return err
	}
	if strings.TrimSpace(it.Text) == "" {
		return fmt.Errorf("item %s: empty text", it.ID)
	}
	if n := len([]rune(it.Text)); n > MaxText {
		return fmt.Errorf("item %s: text is %d characters, over %d", it.ID, n, MaxText)
	}
	switch it.Status {
	case Open, Done, Dropped:
	case Claimed:
		if it.Claim == nil {
			return fmt.Errorf("item %s: claimed without a claim", it.ID)
		}
	default:
		return fmt.Errorf("item %s: unknown status %q", it.ID, it.Status)
	}
	if len(it.BlockedBy) > MaxBlocked {
		return fmt.Errorf("item %s: blocked by %d items, over %d", it.ID, len(it.BlockedBy), MaxBlocked)
	}
	for _, b := range it.BlockedBy {
		if err := ValidID(b); err != nil {
			return fmt.Errorf("item %s: blockedBy: %w", it.ID, err)
		}
	}
	if len(it.Notes) > MaxNotes {
		return fmt.Errorf("item %s: %d notes, over %d", it.ID, len(it.Notes), MaxNotes)
	}
	for _, n := range it.Notes {
		if len([]rune(n.Text)) > MaxNote {
			return fmt.Errorf("item %s: a note is over %d characters", it.ID, MaxNote)
		}
	}
	if len([]rune(it.Evidence)) > MaxEvidence {
		return fmt.Errorf("item %s: evidence is over %d characters", it.ID, MaxEvidence)
	}
	return nil
}

// CheckBlockedBy refuses blockedBy ids of item id that are unknown, the
// item itself, or that would close a cycle. get looks an item up on the
// board as it is (without item id's new blockedBy).
func CheckBlockedBy(id string, blockedBy []string, get func(string) (Item, bool)) error {
	for _, b := range blockedBy {
		if b == id {
			return fmt.Errorf("item %s cannot be blocked by itself", id)
		}
		if _, ok := get(b); !ok {
			return fmt.Errorf("blocked by %s: %w", b, ErrNotFound)
		}
	}
	// A cycle: id is reachable from one of its new blockers.
	seen := map[string]bool{}
	var reaches func(from string, path []string) []string
	reaches = func(from string, path []string) []string {
		if from == id {
			return path
		}
		if seen[from] {
			return nil
		}
		seen[from] = true
		it, ok := get(from)
		if !ok {
			return nil
		}
		for _, next := range it.BlockedBy {
			if p := reaches(next, append(path, next)); p != nil {
				return p
			}
		}
		return nil
	}
	for _, b := range blockedBy {
		if p := reaches(b, []string{id, b}); p != nil {
			return fmt.Errorf("blocked by %s would make a cycle: %s", b, strings.Join(p, " → "))
		}
	}
	return nil
}

// Ready reports whether an item can be claimed at now: open, or claimed
// with its lease ended, and nothing it waits on is still open. get looks
// up its blockers.
func Ready(it *Item, now time.Time, get func(string) (Item, bool)) bool {
	switch {
	case it.Status == Open:
	case it.Status == Claimed && !it.Leased(now):
	default:
		return false
	}
	return len(Blockers(it, get)) == 0
}

// Claimable says why who cannot claim the item at now, or nil: it is
// ready, or already who's (a claim again renews the lease).
func Claimable(it *Item, who Who, now time.Time, get func(string) (Item, bool)) error {
	if it.Leased(now) && it.Claim.Same(who) {
		return nil
	}
	if it.Leased(now) {
		return &ClaimedError{ID: it.ID, Claim: *it.Claim}
	}
	if it.Closed() {
		return fmt.Errorf("%s is %s", it.ID, it.Status)
	}
	if open := Blockers(it, get); len(open) > 0 {
		return fmt.Errorf("%s is blocked by %s", it.ID, strings.Join(open, ", "))
	}
	return nil
}

// Blockers are the ids of the items it waits on that are neither done nor
// dropped (an unknown blocker counts as open).
func Blockers(it *Item, get func(string) (Item, bool)) []string {
	var open []string
	for _, b := range it.BlockedBy {
		if bi, ok := get(b); !ok || !bi.Closed() {
			open = append(open, b)
		}
	}
	return open
}

// Sort puts items in the board's order: oldest first, then by id.
func Sort(items []Item) {
	slices.SortFunc(items, func(a, b Item) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// Lookup makes a get function over a list of items.
func Lookup(items []Item) func(string) (Item, bool) {
	m := make(map[string]int, len(items))
	for i := range items {
		m[items[i].ID] = i
	}
	return func(id string) (Item, bool) {
		i, ok := m[id]
		if !ok {
			return Item{}, false
		}
		return items[i], true
	}
}

// ReadyOf returns the ready items of a board in its order.
func ReadyOf(items []Item, now time.Time) []Item {
	get := Lookup(items)
	var ready []Item
	for i := range items {
		if Ready(&items[i], now, get) {
			ready = append(ready, items[i])
		}
	}
	Sort(ready)
	return ready
}

// Change is a change to one item as a pure function of the item and the
// time; it returns an error (and the item is unchanged) when a rule
// forbids it. get looks up other items, for blockedBy.
type Change func(it *Item, now time.Time, get func(string) (Item, bool)) error

// Release gives up who's claim: the item is open again.
func Release(who Who) Change {
	return func(it *Item, now time.Time, _ func(string) (Item, bool)) error {
		if it.Status != Claimed || it.Claim == nil {
			return fmt.Errorf("%s is %s, not claimed", it.ID, it.Status)
		}
		if !it.Claim.Same(who) && it.Leased(now) {
			return &ClaimedError{ID: it.ID, Claim: *it.Claim}
		}
		it.Status, it.Claim = Open, nil
		return nil
	}
}

// Finish marks the item done (with its evidence) or dropped. An item
// another claimant holds under a running lease is refused.
func Finish(who Who, status Status, evidence string) Change {
	return func(it *Item, now time.Time, get func(string) (Item, bool)) error {
		if it.Closed() {
			if it.Status == status {
				return nil
			}
			return fmt.Errorf("%s is already %s", it.ID, it.Status)
		}
		if it.Leased(now) && !it.Claim.Same(who) {
			return &ClaimedError{ID: it.ID, Claim: *it.Claim}
		}
		if status == Done {
			if open := Blockers(it, get); len(open) > 0 {
				return fmt.Errorf("%s is blocked by %s, which is not done", it.ID, strings.Join(open, ", "))
			}
		}
		if it.Status != Claimed || it.Claim == nil || !it.Claim.Same(who) {
			it.Claim = &Claim{Who: who, At: now, Until: now}
		}
		it.Claim.Until = now // the lease ends with the work
		it.Status, it.Evidence = status, evidence
		return nil
	}
}

// EditText replaces the item's text.
func EditText(text string) Change {
	return func(it *Item, _ time.Time, _ func(string) (Item, bool)) error {
		it.Text = text
		return nil
	}
}

// AddNote appends a note by who.
func AddNote(who Who, text string) Change {
	return func(it *Item, now time.Time, _ func(string) (Item, bool)) error {
		if strings.TrimSpace(text) == "" {
			return errors.New("empty note")
		}
		it.Notes = append(it.Notes, Note{At: now, By: who.String(), Text: text})
		return nil
	}
}

// SetBlockedBy replaces what the item waits on; unknown ids and cycles are
// refused.
func SetBlockedBy(ids []string) Change {
	return func(it *Item, _ time.Time, get func(string) (Item, bool)) error {
		ids = dedupe(ids)
		if err := CheckBlockedBy(it.ID, ids, get); err != nil {
			return err
		}
		it.BlockedBy = ids
		return nil
	}
}

// ForgetLost removes the lost claims of who, once told.
func ForgetLost(who Who) Change {
	return func(it *Item, _ time.Time, _ func(string) (Item, bool)) error {
		it.Lost = slices.DeleteFunc(it.Lost, func(c Claim) bool { return c.Same(who) })
		if len(it.Lost) == 0 {
			it.Lost = nil
		}
		return nil
	}
}

func dedupe(ids []string) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// New makes a new open item with a fresh id, checked on its own.
func New(text string, blockedBy []string, now time.Time) (Item, error) {
	it := Item{ID: NewID(), Text: text, Status: Open, BlockedBy: dedupe(blockedBy), Created: now, Updated: now}
	return it, Check(&it)
}

// Engine is where a board is kept. Every method is safe to call from many
// processes at once; a change is all or nothing.
type Engine interface {
	// Add puts a new item on the board; its blockedBy must name items on
	// the board.
	Add(ctx context.Context, it Item) error
	// Get returns one item.
	Get(ctx context.Context, id string) (Item, error)
	// List returns every item in the board's order, and the problems of
	// items that could not be read (each named, and skipped).
	List(ctx context.Context) ([]Item, []error, error)
	// Ready returns the ready items in the board's order (ReadyOf at the
	// engine's now), with at least their id, text and creation time; it
	// is what `board ready` reads, made cheap for a large board.
	Ready(ctx context.Context) ([]Item, []error, error)
	// Claim gives item id to who for lease, when it is ready (or already
	// who's); otherwise a *ClaimedError, or an error saying why.
	Claim(ctx context.Context, id string, who Who, lease time.Duration) (Item, error)
	// ClaimNext claims the first ready item, or returns ErrNoneReady.
	ClaimNext(ctx context.Context, who Who, lease time.Duration) (Item, error)
	// Update applies a change to item id atomically and reports whether
	// it changed anything.
	Update(ctx context.Context, id string, ch Change) (Item, bool, error)
	// Import adds items as they are (ids kept), skipping ids the board
	// has; it returns how many were added.
	Import(ctx context.Context, items []Item) (int, error)
	// Watch calls changed after every change to the board by any process
	// until ctx ends.
	Watch(ctx context.Context, changed func()) error
	// Where names the board for people (a path, or a URL without its
	// password).
	Where() string
	// Close releases the engine's resources.
	Close() error
}
