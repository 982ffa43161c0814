package sessionlog

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
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

// boltRecord is a record as stored.
type boltRecord struct {
	Kind Kind            `json:"k"`
	Time int64           `json:"t"` // unix nanoseconds
	Data json.RawMessage `json:"d"`
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
	now := time.Now()
	val, err := json.Marshal(boltRecord{Kind: r.Kind, Time: now.UnixNano(), Data: r.Data})
	if err != nil {
		return fmt.Errorf("append to session %s: %w", id, err)
	}
	return b.db.Update(func(tx *bolt.Tx) error {
		logs, open := tx.Bucket(bucketLog), tx.Bucket(bucketOpen)
		sb := logs.Bucket([]byte(id))
		if r.Seq == 0 {
			if sb != nil {
				return fmt.Errorf("create session %s: %w", id, ErrConflict)
			}
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
			var br boltRecord
			if err := json.Unmarshal(v, &br); err != nil {
				return fmt.Errorf("session %s record %d: %w", id, binary.BigEndian.Uint64(k), err)
			}
			// v lives only as long as the transaction.
			out = append(out, Record{Seq: int64(binary.BigEndian.Uint64(k)), Kind: br.Kind,
				Data: bytes.Clone(br.Data), Time: time.Unix(0, br.Time)})
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
