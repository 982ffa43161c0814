package sessionlog

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The bbolt layout: bucket meta holds "format"; bucket log holds one
// nested bucket per session, its records keyed by 8-byte big-endian
// sequence numbers; bucket open maps every session not ended to the time
// of its last record (8-byte big-endian unix nanoseconds).
var (
	bucketMeta = []byte("meta")
	bucketLog  = []byte("log")
	bucketOpen = []byte("open")
	keyFormat  = []byte("format")
)

// encodeBolt is a record as stored: its time (8-byte big-endian unix
// nanoseconds), its kind's length (1 byte) and kind, then its data as
// given, byte for byte.
func encodeBolt(kind Kind, at time.Time, data []byte) []byte {
	out := binary.BigEndian.AppendUint64(make([]byte, 0, 9+len(kind)+len(data)), uint64(at.UnixNano()))
	out = append(out, byte(len(kind)))
	out = append(out, kind...)
	return append(out, data...)
}

// decodeBolt reads what encodeBolt wrote, copying it out of the
// transaction's memory.
func decodeBolt(v []byte) (kind Kind, at time.Time, data []byte, err error) {
	if len(v) < 9 || len(v) < 9+int(v[8]) {
		return "", time.Time{}, nil, fmt.Errorf("record of %d bytes is truncated", len(v))
	}
	n := 9 + int(v[8])
	return Kind(v[9:n]), time.Unix(0, int64(binary.BigEndian.Uint64(v))), bytes.Clone(v[n:]), nil
}

// Bolt is a Store in one bbolt file: one process holds it at a time
// (others wait a second for the file lock, then fail), and every Append
// is fsynced before it returns.
type Bolt struct {
	db   *bolt.DB
	path string
}

// OpenBolt opens or creates the bbolt store at path.
func OpenBolt(path string) (*Bolt, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("store %s: held by another process (a bbolt store serves one server; use postgres:// for replicas)", path)
		}
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if v := meta.Get(keyFormat); v != nil {
			n, err := strconv.Atoi(string(v))
			if err != nil {
				return fmt.Errorf("format version %q: %w", v, err)
			}
			if n > FormatVersion {
				return newerFormat("store "+path, n)
			}
		} else if err := meta.Put(keyFormat, []byte(strconv.Itoa(FormatVersion))); err != nil {
			return err
		}
		if _, err := tx.CreateBucketIfNotExists(bucketLog); err != nil {
			return err
		}
		_, err = tx.CreateBucketIfNotExists(bucketOpen)
		return err
	})
	if err != nil {
		db.Close()
		if errors.Is(err, ErrNewerFormat) {
			return nil, err
		}
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	return &Bolt{db: db, path: path}, nil
}

func seqKey(seq int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(seq)) }

// Append implements Store.
func (b *Bolt) Append(ctx context.Context, id string, r Record) error {
	if err := checkAppend(id, r); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(r.Kind) > 255 {
		return fmt.Errorf("append to session %s: kind %q is too long", id, r.Kind)
	}
	now := time.Now()
	val := encodeBolt(r.Kind, now, r.Data)
	return b.db.Update(func(tx *bolt.Tx) error {
		logs, open := tx.Bucket(bucketLog), tx.Bucket(bucketOpen)
		sb := logs.Bucket([]byte(id))
		if r.Seq == 0 {
			if sb != nil {
				return fmt.Errorf("create session %s: %w", id, ErrConflict)
			}
			var err error
			if sb, err = logs.CreateBucket([]byte(id)); err != nil {
				return err
			}
		} else {
			if sb == nil {
				return fmt.Errorf("session %s: %w", id, ErrNotFound)
			}
			if open.Get([]byte(id)) == nil {
				return fmt.Errorf("session %s: %w", id, ErrEnded)
			}
			k, _ := sb.Cursor().Last()
			if last := int64(binary.BigEndian.Uint64(k)); last != r.Seq-1 {
				return fmt.Errorf("append to session %s at %d, its last record is %d: %w", id, r.Seq, last, ErrConflict)
			}
		}
		if err := sb.Put(seqKey(r.Seq), val); err != nil {
			return err
		}
		if r.Kind == KindEnd {
			return open.Delete([]byte(id))
		}
		return open.Put([]byte(id), binary.BigEndian.AppendUint64(nil, uint64(now.UnixNano())))
	})
}

// Load implements Store.
func (b *Bolt) Load(ctx context.Context, id string, from int64) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Record
	err := b.db.View(func(tx *bolt.Tx) error {
		sb := tx.Bucket(bucketLog).Bucket([]byte(id))
		if sb == nil {
			return fmt.Errorf("session %s: %w", id, ErrNotFound)
		}
		c := sb.Cursor()
		for k, v := c.Seek(seqKey(max(from, 0))); k != nil; k, v = c.Next() {
			kind, at, data, err := decodeBolt(v)
			if err != nil {
				return fmt.Errorf("session %s record %d: %w", id, binary.BigEndian.Uint64(k), err)
			}
			out = append(out, Record{Seq: int64(binary.BigEndian.Uint64(k)), Kind: kind, Data: data, Time: at})
		}
		return nil
	})
	return out, err
}

// Stale implements Store.
func (b *Bolt) Stale(ctx context.Context, before time.Time, limit int) ([]string, error) {
	var out []string
	err := b.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketOpen).ForEach(func(k, v []byte) error {
			if len(out) < limit && int64(binary.BigEndian.Uint64(v)) < before.UnixNano() {
				out = append(out, string(k))
			}
			return nil
		})
	})
	return out, err
}

// Ping implements Store.
func (b *Bolt) Ping(ctx context.Context) error {
	return b.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketLog) == nil {
			return errors.New("store has no log bucket")
		}
		return nil
	})
}

// Describe implements Store.
func (b *Bolt) Describe() string { return "bbolt " + b.path }

// Shared implements Store: a bbolt file has one writer process.
func (b *Bolt) Shared() bool { return false }

// Close implements Store.
func (b *Bolt) Close() error { return b.db.Close() }
