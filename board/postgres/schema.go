package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// channel is the LISTEN/NOTIFY channel every change is announced on.
const channel = "todosh_board"

// migrations are the schema's versions in order: version N is the first N
// applied. A new version is a new entry at the end, never an edit.
var migrations = []string{
	// 1: the items, the ready order's index, and the trigger that
	// announces every change for watch.
	`CREATE TABLE ` + table + ` (
		id text PRIMARY KEY,
		status text NOT NULL,
		blocked_by text[] NOT NULL DEFAULT '{}',
		lease_until timestamptz,
		created timestamptz NOT NULL,
		item jsonb NOT NULL
	);
	CREATE INDEX todosh_board_items_order ON ` + table + ` (created, id) WHERE status IN ('open', 'claimed');
	CREATE FUNCTION todosh_board_notify() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM pg_notify('` + channel + `', coalesce(NEW.id, OLD.id));
		RETURN NULL;
	END $$;
	CREATE TRIGGER todosh_board_notify AFTER INSERT OR UPDATE OR DELETE ON ` + table + `
		FOR EACH ROW EXECUTE FUNCTION todosh_board_notify();`,
}

// Version is the schema version this todosh writes.
var Version = len(migrations)

// migrate brings the database's schema to Version on first use: one
// query when it is current; otherwise, under an advisory lock so two
// first uses do not race, the missing versions in one transaction. A
// database whose schema is newer than this todosh is refused.
func (b *Board) migrate(ctx context.Context) error {
	var have int
	err := b.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM todosh_board_schema`).Scan(&have)
	var pg *pgconn.PgError
	if err != nil && !(errors.As(err, &pg) && pg.Code == "42P01") { // undefined_table
		return err
	}
	if err == nil && have == Version {
		return nil
	}
	if have > Version {
		return fmt.Errorf("its schema is version %d, newer than this todosh's %d: upgrade todosh", have, Version)
	}
	return pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7406300)`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS todosh_board_schema (version integer NOT NULL, applied timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM todosh_board_schema`).Scan(&have); err != nil {
			return err
		}
		if have > Version {
			return fmt.Errorf("its schema is version %d, newer than this todosh's %d: upgrade todosh", have, Version)
		}
		for v := have; v < Version; v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("schema version %d: %w", v+1, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO todosh_board_schema (version) VALUES ($1)`, v+1); err != nil {
				return err
			}
		}
		return nil
	})
}
