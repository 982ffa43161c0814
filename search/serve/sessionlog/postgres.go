package sessionlog

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// schema creates the tables of a PostgreSQL store. The primary key
// (session, seq) of triage_session_log and the conditional UPDATE of
// triage_sessions.last_seq in Append make PostgreSQL serialize the
// appends of one session, whichever process makes them.
const schema = `
CREATE TABLE IF NOT EXISTS triage_meta (
	key   text PRIMARY KEY,
	value text NOT NULL
);
CREATE TABLE IF NOT EXISTS triage_sessions (
	id         text PRIMARY KEY,
	last_seq   bigint NOT NULL,
	updated_at timestamptz NOT NULL,
	ended      boolean NOT NULL DEFAULT false
);
CREATE INDEX IF NOT EXISTS triage_sessions_open ON triage_sessions (updated_at) WHERE NOT ended;
CREATE TABLE IF NOT EXISTS triage_session_log (
	session text NOT NULL REFERENCES triage_sessions (id) ON DELETE CASCADE,
	seq     bigint NOT NULL,
	kind    text NOT NULL,
	at      timestamptz NOT NULL,
	data    json NOT NULL, -- json, not jsonb: kept byte for byte, \u0000 included
	PRIMARY KEY (session, seq)
);`

// migrationLock is the advisory lock that keeps replicas starting together
// from creating the schema twice at once.
const migrationLock = 0x7472696167 // "triag"

// Postgres is a Store in a PostgreSQL database, shared by any number of
// server processes.
type Postgres struct {
	pool *pgxpool.Pool
	desc string
}

// OpenPostgres connects to the database at url (a postgres:// URL; see
// pgx for its parameters), creates the schema when missing and checks its
// format version. An unreachable server fails within 10 s (or the URL's
// connect_timeout).
func OpenPostgres(ctx context.Context, rawURL string) (*Postgres, error) {
	desc := "postgres"
	if u, err := url.Parse(rawURL); err == nil {
		desc = "postgres " + u.Redacted()
	}
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", desc, err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", desc, err)
	}
	p := &Postgres{pool: pool, desc: desc}
	if err := p.migrate(ctx); err != nil {
		pool.Close()
		if errors.Is(err, ErrNewerFormat) {
			return nil, err
		}
		return nil, fmt.Errorf("store %s: %w", desc, err)
	}
	return p, nil
}

// migrate creates the schema and checks (or records) the format version,
// under an advisory lock.
func (p *Postgres) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, schema); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
		var v string
		err := tx.QueryRow(ctx, "SELECT value FROM triage_meta WHERE key = 'format'").Scan(&v)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			_, err = tx.Exec(ctx, "INSERT INTO triage_meta (key, value) VALUES ('format', $1)", strconv.Itoa(FormatVersion))
			return err
		case err != nil:
			return err
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("format version %q: %w", v, err)
		}
		if n > FormatVersion {
			return newerFormat("store "+p.desc, n)
		}
		return nil
	})
}

// Append implements Store, in one statement (one round trip, one
// commit): the session's row is updated only if its last record is
// r.Seq−1, under PostgreSQL's row lock, and the record is inserted only
// if it was. Of two appends at one number, the second finds the row moved
// on (or the key (session, seq) taken) and fails with ErrConflict.
func (p *Postgres) Append(ctx context.Context, id string, r Record) error {
	if err := checkAppend(id, r); err != nil {
		return err
	}
	const create = `WITH s AS (
		INSERT INTO triage_sessions (id, last_seq, updated_at) VALUES ($1, 0, now()) ON CONFLICT (id) DO NOTHING RETURNING id)
	INSERT INTO triage_session_log (session, seq, kind, at, data) SELECT id, $2, $3, now(), $4::json FROM s`
	const next = `WITH s AS (
		UPDATE triage_sessions SET last_seq = $2, updated_at = now(), ended = $5
		WHERE id = $1 AND last_seq = $2 - 1 AND NOT ended RETURNING id)
	INSERT INTO triage_session_log (session, seq, kind, at, data) SELECT id, $2, $3, now(), $4::json FROM s`
	var tag pgconn.CommandTag
	var err error
	if r.Seq == 0 {
		tag, err = p.pool.Exec(ctx, create, id, r.Seq, string(r.Kind), string(r.Data))
	} else {
		tag, err = p.pool.Exec(ctx, next, id, r.Seq, string(r.Kind), string(r.Data), r.Kind == KindEnd)
	}
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && pe.Code == "23505": // unique_violation: the key (session, seq)
		return fmt.Errorf("append to session %s at %d: %w", id, r.Seq, ErrConflict)
	case err != nil:
		return fmt.Errorf("append to session %s: %w", id, err)
	case tag.RowsAffected() == 1:
		return nil
	case r.Seq == 0:
		return fmt.Errorf("create session %s: %w", id, ErrConflict)
	}
	return p.whyNot(ctx, id, r.Seq)
}

// whyNot explains an append whose UPDATE matched no row.
func (p *Postgres) whyNot(ctx context.Context, id string, seq int64) error {
	var last int64
	var ended bool
	err := p.pool.QueryRow(ctx, "SELECT last_seq, ended FROM triage_sessions WHERE id = $1", id).Scan(&last, &ended)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	case err != nil:
		return err
	case ended:
		return fmt.Errorf("session %s: %w", id, ErrEnded)
	}
	return fmt.Errorf("append to session %s at %d, its last record is %d: %w", id, seq, last, ErrConflict)
}

// Load implements Store, in one query: the session's row joined with
// its records from from on (one row with no record when it has none
// there, no row when there is no such session).
func (p *Postgres) Load(ctx context.Context, id string, from int64) ([]Record, error) {
	rows, err := p.pool.Query(ctx, `SELECT l.seq, l.kind, l.at, l.data::text FROM triage_sessions s
		LEFT JOIN triage_session_log l ON l.session = s.id AND l.seq >= $2 WHERE s.id = $1 ORDER BY l.seq`, id, from)
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	defer rows.Close()
	out := []Record{}
	found := false
	for rows.Next() {
		found = true
		var seq *int64
		var kind, data *string
		var at *time.Time
		if err := rows.Scan(&seq, &kind, &at, &data); err != nil {
			return nil, fmt.Errorf("load session %s: %w", id, err)
		}
		if seq == nil {
			continue // the session has no record from from on
		}
		out = append(out, Record{Seq: *seq, Kind: Kind(*kind), Time: *at, Data: []byte(*data)})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	if !found {
		return nil, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return out, nil
}

// Stale implements Store.
func (p *Postgres) Stale(ctx context.Context, before time.Time, limit int) ([]string, error) {
	rows, err := p.pool.Query(ctx, "SELECT id FROM triage_sessions WHERE NOT ended AND updated_at < $1 ORDER BY updated_at LIMIT $2", before, limit)
	if err != nil {
		return nil, fmt.Errorf("stale sessions: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Ping implements Store.
func (p *Postgres) Ping(ctx context.Context) error { return p.pool.Ping(ctx) }

// Describe implements Store.
func (p *Postgres) Describe() string { return p.desc }

// Shared implements Store.
func (p *Postgres) Shared() bool { return true }

// Close implements Store.
func (p *Postgres) Close() error { p.pool.Close(); return nil }
