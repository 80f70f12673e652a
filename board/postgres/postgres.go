// Package postgres is the board engine for a live fleet across machines:
// one table in a PostgreSQL database, through jackc/pgx. A claim is one
// UPDATE … RETURNING whose WHERE says "ready", never a read then a write;
// watch is LISTEN/NOTIFY; the schema is created on first use and
// versioned (schema.go). See docs/board.md.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/todosh/todosh/board"
)

// Board is a board in a PostgreSQL database.
type Board struct {
	pool  *pgxpool.Pool
	where string
}

// IsURL reports whether s names a PostgreSQL server (postgres:// or
// postgresql://).
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redact returns the URL without its password (in the user part or the
// query), for every message a person sees.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unreadable postgres URL)"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	if q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Open connects to the database at rawURL and makes sure its schema is
// this todosh's (creating it on first use). Every error is one line that
// names the URL without its password.
func Open(ctx context.Context, rawURL string) (*Board, error) {
	where := Redact(rawURL)
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("board URL %s: %s", where, cause(err))
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	// JIT compiling `ready` over 10,000 rows took 370 ms of its 440
	// (PostgreSQL 15); the board's statements are small. A URL may still
	// turn it on (?jit=on).
	if _, ok := cfg.ConnConfig.RuntimeParams["jit"]; !ok {
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("board %s: %s", where, cause(err))
	}
	b := &Board{pool: pool, where: where}
	if err := b.migrate(ctx); err != nil {
		pool.Close()
		return nil, b.fail(err)
	}
	return b, nil
}

// fail makes a driver error one line naming the board's URL.
func (b *Board) fail(err error) error {
	if err == nil {
		return nil
	}
	var pg *pgconn.PgError
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne):
		return fmt.Errorf("cannot reach the board at %s: %s (is the server up, and the URL right?)", b.where, cause(err))
	case errors.As(err, &pg):
		return fmt.Errorf("board %s: %s", b.where, cause(err))
	}
	return fmt.Errorf("board %s: %w", b.where, err)
}

// cause is the innermost useful words of a driver error, with no password
// (pgx never prints one) and on one line.
func cause(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return strings.ToLower(pg.Severity) + ": " + pg.Message + " (SQLSTATE " + pg.Code + ")"
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe.Err.Error()
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && strings.HasPrefix(s, "failed to connect") {
		s = s[i+2:]
	}
	return strings.ReplaceAll(s, "\n", " ")
}

// Where is the URL without its password.
func (b *Board) Where() string { return b.where }

// Close closes the connections.
func (b *Board) Close() error {
	b.pool.Close()
	return nil
}

const table = "todosh_board_items"

// ready is the SQL of board.Ready for the row alias i: open, or claimed
// with its lease ended, and every blocker done or dropped (an unknown
// blocker counts as open).
const ready = `(i.status = 'open' OR (i.status = 'claimed' AND i.lease_until <= now()))
	AND (cardinality(i.blocked_by) = 0 OR cardinality(i.blocked_by) = (SELECT count(*) FROM ` + table + ` b
		WHERE b.id = ANY(i.blocked_by) AND b.status IN ('done', 'dropped')))`

// claimSet is the SET of a claim: status, lease and the item's JSON, all
// from the server's clock, so the fleet agrees on when a lease ends.
// lease and who are the statement's parameters ($N) of the lease in
// microseconds and the claimant's JSON.
func claimSet(lease, who string) string {
	return `status = 'claimed',
	lease_until = now() + ` + lease + ` * interval '1 microsecond',
	item = i.item || jsonb_build_object('status', 'claimed', 'updated', now(),
		'claim', ` + who + `::jsonb || jsonb_build_object('at', now(), 'until', now() + ` + lease + ` * interval '1 microsecond'))`
}

// Claim is one statement: the row changes only when it is ready, or
// already who's; otherwise the item is read to say why.
func (b *Board) Claim(ctx context.Context, id string, who board.Who, lease time.Duration) (board.Item, error) {
	if err := board.CheckLease(lease); err != nil {
		return board.Item{}, err
	}
	if err := board.ValidID(id); err != nil {
		return board.Item{}, err
	}
	whoJSON, _ := json.Marshal(who)
	row := b.pool.QueryRow(ctx, `UPDATE `+table+` AS i SET `+claimSet("$2", "$3")+`
		WHERE i.id = $1 AND ((`+ready+`) OR (i.status = 'claimed' AND i.lease_until > now()
			AND i.item->'claim'->>'session' = $4 AND coalesce(i.item->'claim'->>'host', '') = $5))
		RETURNING i.item`, id, lease.Microseconds(), whoJSON, who.Session, who.Host)
	it, err := scanItem(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return b.whyNot(ctx, id, who)
	}
	return it, b.fail(err)
}

// whyNot reads an item a claim did not change, to say why.
func (b *Board) whyNot(ctx context.Context, id string, who board.Who) (board.Item, error) {
	it, err := b.Get(ctx, id)
	if err != nil {
		return it, err
	}
	var now time.Time
	if err := b.pool.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
		return it, b.fail(err)
	}
	if err := board.Claimable(&it, who, now, b.lookup(ctx, b.pool)); err != nil {
		return it, err
	}
	return it, fmt.Errorf("%s: changed while it was claimed: try again", id)
}

// ClaimNext is one statement: the first ready row not locked by another
// claimer (FOR UPDATE SKIP LOCKED), checked again as it is updated.
func (b *Board) ClaimNext(ctx context.Context, who board.Who, lease time.Duration) (board.Item, error) {
	if err := board.CheckLease(lease); err != nil {
		return board.Item{}, err
	}
	whoJSON, _ := json.Marshal(who)
	wait := time.Millisecond
	for {
		row := b.pool.QueryRow(ctx, `UPDATE `+table+` AS i SET `+claimSet("$1", "$2")+`
			FROM (SELECT i.id FROM `+table+` i WHERE `+ready+`
				ORDER BY i.created, i.id LIMIT 1 FOR UPDATE SKIP LOCKED) AS n
			WHERE i.id = n.id AND `+ready+`
			RETURNING i.item`, lease.Microseconds(), whoJSON)
		it, err := scanItem(row)
		if !errors.Is(err, pgx.ErrNoRows) {
			return it, b.fail(err)
		}
		// Nothing claimed: none ready, or every ready row was being
		// claimed by others at that moment.
		var any bool
		if err := b.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+` i WHERE `+ready+`)`).Scan(&any); err != nil {
			return board.Item{}, b.fail(err)
		}
		if !any {
			return board.Item{}, board.ErrNoneReady
		}
		// The ready rows are locked by other claims or an Update's
		// transaction: wait a little, longer each round, rather than
		// send both statements again at once for as long as they hold.
		select {
		case <-ctx.Done():
			return board.Item{}, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, maxClaimWait)
	}
}

// maxClaimWait bounds ClaimNext's wait between rounds while every ready
// row is locked by another claimer; the first wait is a millisecond.
const maxClaimWait = 50 * time.Millisecond

func scanItem(row pgx.Row) (board.Item, error) {
	var raw []byte
	if err := row.Scan(&raw); err != nil {
		return board.Item{}, err
	}
	var it board.Item
	if err := json.Unmarshal(raw, &it); err != nil {
		return it, fmt.Errorf("item in the database: %v", err)
	}
	return it, board.Check(&it)
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// lookup reads blockers one row at a time.
func (b *Board) lookup(ctx context.Context, q querier) func(string) (board.Item, bool) {
	return func(id string) (board.Item, bool) {
		it, err := scanItem(q.QueryRow(ctx, `SELECT item FROM `+table+` WHERE id = $1`, id))
		return it, err == nil
	}
}

// Get returns one item.
func (b *Board) Get(ctx context.Context, id string) (board.Item, error) {
	if err := board.ValidID(id); err != nil {
		return board.Item{}, err
	}
	it, err := scanItem(b.pool.QueryRow(ctx, `SELECT item FROM `+table+` WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return it, fmt.Errorf("%s: %w", id, board.ErrNotFound)
	}
	return it, b.fail(err)
}

// List returns every item in the board's order; a row that is not a valid
// item is named and skipped.
func (b *Board) List(ctx context.Context) ([]board.Item, []error, error) {
	rows, err := b.pool.Query(ctx, `SELECT id, item FROM `+table+` ORDER BY created, id`)
	if err != nil {
		return nil, nil, b.fail(err)
	}
	defer rows.Close()
	var (
		items    []board.Item
		problems []error
		id       string
		raw      []byte
	)
	for rows.Next() {
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, nil, b.fail(err)
		}
		var it board.Item
		err := json.Unmarshal(raw, &it)
		if err == nil {
			err = board.Check(&it)
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("item %s in %s: %v (fix or delete the row)", id, b.where, err))
			continue
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, b.fail(err)
	}
	board.Sort(items)
	return items, problems, nil
}

// Ready selects the ready rows in SQL (the claim's own condition) and
// reads only their id, text and creation time.
func (b *Board) Ready(ctx context.Context) ([]board.Item, []error, error) {
	rows, err := b.pool.Query(ctx, `SELECT i.id, i.item->>'text', i.created FROM `+table+` i WHERE `+ready+` ORDER BY i.created, i.id`)
	if err != nil {
		return nil, nil, b.fail(err)
	}
	defer rows.Close()
	var items []board.Item
	for rows.Next() {
		it := board.Item{Status: board.Open}
		if err := rows.Scan(&it.ID, &it.Text, &it.Created); err != nil {
			return nil, nil, b.fail(err)
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, b.fail(err)
	}
	return items, nil, nil
}

// structureLock serialises the changes that can close a blockedBy cycle
// (adds and updates) among themselves, not against claims.
const structureLock = `SELECT pg_advisory_xact_lock(7406301)`

// Add inserts a new item; its blockers are checked in the same
// transaction.
func (b *Board) Add(ctx context.Context, it board.Item) error {
	if err := board.Check(&it); err != nil {
		return err
	}
	return b.fail(pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, structureLock); err != nil {
			return err
		}
		if err := board.CheckBlockedBy(it.ID, it.BlockedBy, b.lookup(ctx, tx)); err != nil {
			return userError{err}
		}
		tag, err := tx.Exec(ctx, `INSERT INTO `+table+` (id, status, blocked_by, lease_until, created, item)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`, row(&it)...)
		if err == nil && tag.RowsAffected() == 0 {
			return userError{fmt.Errorf("item %s is already on the board", it.ID)}
		}
		return err
	}))
}

// userError is a refusal by the board's rules inside a transaction,
// returned as it is rather than as a driver error.
type userError struct{ error }

func (e userError) Unwrap() error { return e.error }

func row(it *board.Item) []any {
	var lease *time.Time
	if it.Claim != nil && it.Status == board.Claimed {
		lease = &it.Claim.Until
	}
	blocked := it.BlockedBy
	if blocked == nil {
		blocked = []string{}
	}
	raw, _ := json.Marshal(it)
	return []any{it.ID, string(it.Status), blocked, lease, it.Created, raw}
}

// Update applies ch to the row locked FOR UPDATE, in one transaction.
func (b *Board) Update(ctx context.Context, id string, ch board.Change) (board.Item, bool, error) {
	if err := board.ValidID(id); err != nil {
		return board.Item{}, false, err
	}
	var (
		out     board.Item
		changed bool
	)
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, structureLock); err != nil {
			return err
		}
		var now time.Time
		var raw []byte
		err := tx.QueryRow(ctx, `SELECT item, now() FROM `+table+` WHERE id = $1 FOR UPDATE`, id).Scan(&raw, &now)
		if errors.Is(err, pgx.ErrNoRows) {
			return userError{fmt.Errorf("%s: %w", id, board.ErrNotFound)}
		}
		if err != nil {
			return err
		}
		var before board.Item
		if err := json.Unmarshal(raw, &before); err != nil {
			return userError{fmt.Errorf("item %s in %s: %v", id, b.where, err)}
		}
		out = before.Clone()
		if err := ch(&out, now, b.lookup(ctx, tx)); err != nil {
			out = before
			return userError{err}
		}
		if err := board.Check(&out); err != nil {
			out = before
			return userError{err}
		}
		a, _ := json.Marshal(before)
		c, _ := json.Marshal(out)
		if string(a) == string(c) {
			return nil
		}
		out.Updated, changed = now, true
		args := row(&out)
		_, err = tx.Exec(ctx, `UPDATE `+table+` SET status = $2, blocked_by = $3, lease_until = $4, created = $5, item = $6
			WHERE id = $1`, args...)
		return err
	})
	var ue userError
	if errors.As(err, &ue) {
		return out, false, ue.error
	}
	return out, changed, b.fail(err)
}

// Import inserts the items whose ids the table does not have.
func (b *Board) Import(ctx context.Context, items []board.Item) (int, error) {
	n := 0
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		for i := range items {
			if err := board.Check(&items[i]); err != nil {
				return userError{err}
			}
			tag, err := tx.Exec(ctx, `INSERT INTO `+table+` (id, status, blocked_by, lease_until, created, item)
				VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`, row(&items[i])...)
			if err != nil {
				return err
			}
			n += int(tag.RowsAffected())
		}
		return nil
	})
	var ue userError
	if errors.As(err, &ue) {
		return 0, ue.error
	}
	if err != nil {
		return 0, b.fail(err)
	}
	return n, nil
}

// Watch listens on the board's channel (a trigger notifies every change)
// and calls changed for each burst of notifications until ctx ends.
func (b *Board) Watch(ctx context.Context, changed func()) error {
	conn, err := b.pool.Acquire(ctx)
	if err != nil {
		return b.fail(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `LISTEN `+channel); err != nil {
		return b.fail(err)
	}
	for {
		if _, err := conn.Conn().WaitForNotification(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return b.fail(err)
		}
		// A burst is one redraw: take what else arrived meanwhile.
		for {
			short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			_, err := conn.Conn().WaitForNotification(short)
			cancel()
			if err != nil {
				break
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		changed()
	}
}

// Exec runs one statement on the board's database, for tools and
// benchmarks that manage the table (TRUNCATE).
func (b *Board) Exec(ctx context.Context, sql string) error {
	_, err := b.pool.Exec(ctx, sql)
	return b.fail(err)
}
