// Package sessionlog is the durable log of `triage serve`'s ask–tell
// sessions: per session, an append-only sequence of records (the creation,
// then every ask and tell in order, then the end), from which a server
// rebuilds the session exactly where it was.
//
// Appends are optimistic: a record is appended at the sequence number the
// writer expects next (0 creates the session), and a record already at that
// number is a conflict (ErrConflict), reported and never overwritten, so two
// writers of one session are serialized by the store itself. Load reads a
// session from a sequence number on, so a reader that is behind applies only
// what it has not seen.
//
// Two stores implement Store: an embedded bbolt file (Open with a path; one
// process at a time, fsynced before Append returns) and PostgreSQL (Open
// with a postgres:// URL; any number of processes).
//
// Imports: nothing of triage (records are the caller's JSON).
package sessionlog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// FormatVersion is the version of the stored layout this build writes. A
// store written by a later version is refused (ErrNewerFormat) rather than
// misread.
const FormatVersion = 1

// Kind is the kind of a record. The store reads only KindCreate (the first
// record) and KindEnd (the last); the rest is the caller's.
type Kind string

// Record kinds.
const (
	KindCreate Kind = "create"
	KindAsk    Kind = "ask"
	KindTell   Kind = "tell"
	KindEnd    Kind = "end"
)

// Record is one entry of a session's log.
type Record struct {
	Seq  int64 // 0 for the creation, then 1, 2, …
	Kind Kind
	// Data is the caller's JSON encoding of the record.
	Data []byte
	// Time is when the store appended the record (set by Append).
	Time time.Time
}

// Errors of a Store, to be tested with errors.Is.
var (
	// ErrConflict: a record already holds that sequence number (another
	// writer appended first), or the number skips ahead of the log.
	ErrConflict = errors.New("sequence number taken: the session moved on")
	// ErrNotFound: no session has that id.
	ErrNotFound = errors.New("no such session")
	// ErrEnded: the session has ended; nothing may be appended.
	ErrEnded = errors.New("session ended")
	// ErrNewerFormat: the store was written by a newer triage.
	ErrNewerFormat = errors.New("store written by a newer version of triage")
)

// Store is a session log. Its methods are safe for concurrent use.
type Store interface {
	// Append adds r to session id's log at r.Seq, which must be one past
	// the last record (0 creates the session); the record is durable when
	// Append returns nil. A KindEnd record ends the session.
	Append(ctx context.Context, id string, r Record) error
	// Load returns session id's records from sequence number from on, in
	// order (ErrNotFound when there is no such session).
	Load(ctx context.Context, id string, from int64) ([]Record, error)
	// Stale returns up to limit open sessions whose last record is older
	// than before, for expiry.
	Stale(ctx context.Context, before time.Time, limit int) ([]string, error)
	// Ping checks that the store answers.
	Ping(ctx context.Context) error
	// Describe names the store for logs and /healthz, without secrets.
	Describe() string
	// Shared reports whether other processes may append to the store, so
	// a reader must catch up before each use of its copy.
	Shared() bool
	Close() error
}

// Open opens the store named by spec: a postgres:// or postgresql:// URL
// for PostgreSQL, else the path of a bbolt file (created when missing).
func Open(ctx context.Context, spec string) (Store, error) {
	if spec == "" {
		return nil, errors.New("empty store")
	}
	if IsPostgres(spec) {
		return OpenPostgres(ctx, spec)
	}
	return OpenBolt(spec)
}

// IsPostgres reports whether spec names a PostgreSQL store.
func IsPostgres(spec string) bool {
	return strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://")
}

// checkAppend validates what any store requires of an appended record.
func checkAppend(id string, r Record) error {
	switch {
	case id == "":
		return errors.New("append: empty session id")
	case r.Seq < 0:
		return fmt.Errorf("append to session %s: sequence number %d is negative", id, r.Seq)
	case (r.Seq == 0) != (r.Kind == KindCreate):
		return fmt.Errorf("append to session %s: a %s record at %d (the creation, and only it, is record 0)", id, r.Kind, r.Seq)
	case len(r.Data) == 0:
		return fmt.Errorf("append to session %s: empty record", id)
	}
	return nil
}

func newerFormat(where string, v int) error {
	return fmt.Errorf("%s: format version %d, this build reads up to %d: %w (upgrade triage, or use another store)", where, v, FormatVersion, ErrNewerFormat)
}
