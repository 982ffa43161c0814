package sessionlog_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	bolt "go.etcd.io/bbolt"

	"triage/search/serve/sessionlog"
	"triage/search/serve/sessionlog/pgtest"
)

func rec(seq int64, kind sessionlog.Kind, data string) sessionlog.Record {
	return sessionlog.Record{Seq: seq, Kind: kind, Data: []byte(data)}
}

// conformance checks what every Store promises.
func conformance(t *testing.T, st sessionlog.Store) {
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Run("append and load", func(t *testing.T) {
		must(st.Append(ctx, "a", rec(0, sessionlog.KindCreate, `{"seed":1}`)))
		must(st.Append(ctx, "a", rec(1, sessionlog.KindAsk, `{"n":2,"edges":[0,1]}`)))
		must(st.Append(ctx, "a", rec(2, sessionlog.KindTell, `{"edge":1, "child":{"program":"a\u0000b \u00e9 \"q\""}}`)))
		all, err := st.Load(ctx, "a", 0)
		must(err)
		if len(all) != 3 {
			t.Fatalf("loaded %d records, want 3", len(all))
		}
		for i, r := range all {
			if r.Seq != int64(i) || r.Time.IsZero() {
				t.Errorf("record %d: seq %d time %v", i, r.Seq, r.Time)
			}
		}
		// Read back byte for byte (a program may hold any text).
		if all[1].Kind != sessionlog.KindAsk || string(all[2].Data) != `{"edge":1, "child":{"program":"a\u0000b \u00e9 \"q\""}}` {
			t.Errorf("records read back as %+v", all)
		}
		tail, err := st.Load(ctx, "a", 2)
		must(err)
		if len(tail) != 1 || tail[0].Seq != 2 {
			t.Errorf("Load from 2: %+v", tail)
		}
		none, err := st.Load(ctx, "a", 3)
		must(err)
		if len(none) != 0 {
			t.Errorf("Load past the end: %+v", none)
		}
	})
	t.Run("bad appends", func(t *testing.T) {
		cases := []struct {
			name string
			id   string
			r    sessionlog.Record
			want error // nil: any error
		}{
			{"taken", "a", rec(2, sessionlog.KindTell, `{}`), sessionlog.ErrConflict},
			{"gap", "a", rec(5, sessionlog.KindTell, `{}`), sessionlog.ErrConflict},
			{"create twice", "a", rec(0, sessionlog.KindCreate, `{}`), sessionlog.ErrConflict},
			{"unknown session", "nope", rec(1, sessionlog.KindTell, `{}`), sessionlog.ErrNotFound},
			{"create not at 0", "b", rec(1, sessionlog.KindCreate, `{}`), nil},
			{"tell at 0", "b", rec(0, sessionlog.KindTell, `{}`), nil},
			{"empty", "b", rec(0, sessionlog.KindCreate, ``), nil},
			{"no id", "", rec(0, sessionlog.KindCreate, `{}`), nil},
		}
		for _, c := range cases {
			err := st.Append(ctx, c.id, c.r)
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
				t.Errorf("%s: err %v, want %v", c.name, err, c.want)
			}
		}
		if _, err := st.Load(ctx, "nope", 0); !errors.Is(err, sessionlog.ErrNotFound) {
			t.Errorf("Load of an unknown session: %v", err)
		}
	})
	t.Run("end and stale", func(t *testing.T) {
		must(st.Append(ctx, "e", rec(0, sessionlog.KindCreate, `{}`)))
		must(st.Append(ctx, "o", rec(0, sessionlog.KindCreate, `{}`)))
		stale, err := st.Stale(ctx, time.Now().Add(time.Hour), 100)
		must(err)
		if !contains(stale, "e") || !contains(stale, "o") {
			t.Errorf("stale %v, want e and o in it", stale)
		}
		if stale, _ := st.Stale(ctx, time.Now().Add(-time.Hour), 100); len(stale) != 0 {
			t.Errorf("stale an hour ago: %v", stale)
		}
		must(st.Append(ctx, "e", rec(1, sessionlog.KindEnd, `{"why":"deleted"}`)))
		if err := st.Append(ctx, "e", rec(2, sessionlog.KindTell, `{}`)); !errors.Is(err, sessionlog.ErrEnded) {
			t.Errorf("append after the end: %v", err)
		}
		stale, err = st.Stale(ctx, time.Now().Add(time.Hour), 100)
		must(err)
		if contains(stale, "e") {
			t.Errorf("an ended session is stale: %v", stale)
		}
		if got, _ := st.Stale(ctx, time.Now().Add(time.Hour), 1); len(got) != 1 {
			t.Errorf("limit 1: %v", got)
		}
	})
	t.Run("concurrent appends", func(t *testing.T) {
		// Writers race for each number; exactly one wins each, and the
		// log has no gap and no overwritten record.
		must(st.Append(ctx, "c", rec(0, sessionlog.KindCreate, `{}`)))
		const writers, rounds = 4, 10
		var mu sync.Mutex
		wins := map[int64]int{}
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for seq := int64(1); seq <= rounds; seq++ {
					err := st.Append(ctx, "c", rec(seq, sessionlog.KindTell, fmt.Sprintf(`{"w":%d}`, w)))
					switch {
					case err == nil:
						mu.Lock()
						wins[seq]++
						mu.Unlock()
					case !errors.Is(err, sessionlog.ErrConflict):
						t.Errorf("writer %d seq %d: %v", w, seq, err)
					}
				}
			}()
		}
		wg.Wait()
		for seq := int64(1); seq <= rounds; seq++ {
			if wins[seq] > 1 {
				t.Errorf("seq %d appended %d times", seq, wins[seq])
			}
		}
		all, err := st.Load(ctx, "c", 0)
		must(err)
		for i, r := range all {
			if r.Seq != int64(i) {
				t.Fatalf("record %d has seq %d", i, r.Seq)
			}
		}
	})
	if err := st.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestBolt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := sessionlog.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	conformance(t, st)
	if st.Shared() {
		t.Error("a bbolt store says it is shared")
	}
	// A second process (here: a second open) is refused while the file
	// is held, with the reason.
	if _, err := sessionlog.OpenBolt(path); err == nil {
		t.Error("a held store opened twice")
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopened, the log is all there.
	st, err = sessionlog.OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	if all, err := st.Load(context.Background(), "a", 0); err != nil || len(all) != 3 {
		t.Errorf("after reopening: %d records, %v", len(all), err)
	}
	st.Close()
}

func TestBoltNewerFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := sessionlog.OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("format"), []byte(fmt.Sprint(sessionlog.FormatVersion+1)))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sessionlog.OpenBolt(path); !errors.Is(err, sessionlog.ErrNewerFormat) {
		t.Errorf("a newer store opened: %v", err)
	}
}

func TestBoltBadPath(t *testing.T) {
	if _, err := sessionlog.OpenBolt(filepath.Join(t.TempDir(), "missing", "dir", "s.db")); err == nil {
		t.Error("a store in a missing folder opened")
	}
}

func TestPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a PostgreSQL server")
	}
	url := pgtest.Start(t)
	ctx := context.Background()
	st, err := sessionlog.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.Shared() {
		t.Error("a PostgreSQL store says it is not shared")
	}
	conformance(t, st)
	// Two processes' worth of stores on one database see each other.
	other, err := sessionlog.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Append(ctx, "a", rec(3, sessionlog.KindTell, `{"edge":0}`)); err != nil {
		t.Fatal(err)
	}
	if tail, err := st.Load(ctx, "a", 3); err != nil || len(tail) != 1 {
		t.Errorf("the other store's append: %+v, %v", tail, err)
	}
	// A newer version's store is refused with the reason.
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "UPDATE triage_meta SET value = $1 WHERE key = 'format'", fmt.Sprint(sessionlog.FormatVersion+1)); err != nil {
		t.Fatal(err)
	}
	if _, err := sessionlog.Open(ctx, url); !errors.Is(err, sessionlog.ErrNewerFormat) {
		t.Errorf("a newer store opened: %v", err)
	}
}

func TestPostgresUnreachable(t *testing.T) {
	// A socket folder with no server: refused at once, with the reason.
	url := pgtest.URL(t.TempDir(), "nobody", "triage") + "&connect_timeout=2"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := sessionlog.Open(ctx, url); err == nil {
		t.Error("an unreachable store opened")
	}
	if _, err := sessionlog.Open(ctx, "postgres://[::1"); err == nil {
		t.Error("a malformed URL opened")
	}
}
