// Package pgtest starts a private PostgreSQL server for tests: Debian's
// postgresql package (installed by `make test` as root), a fresh cluster in
// a temporary folder, listening only on a unix socket in that folder.
// PostgreSQL refuses to run as root, so as root the server runs as the
// postgres user. Tests skip with the reason where this cannot be done.
//
// Imports: nothing of triage.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// bin finds a PostgreSQL program (initdb, pg_ctl) of the newest installed
// major version.
func bin(name string) (string, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(found) == 0 {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
		return "", fmt.Errorf("%s not found: install Debian's postgresql package (`make test` does, as root)", name)
	}
	sort.Slice(found, func(i, j int) bool { return majorOf(found[i]) < majorOf(found[j]) })
	return found[len(found)-1], nil
}

func majorOf(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

// Start starts a server for t and returns the URL of its database
// "triage"; the server stops when t ends. It skips t with the reason when
// PostgreSQL is missing or cannot start here.
func Start(t testing.TB) string {
	t.Helper()
	initdb, err := bin("initdb")
	if err != nil {
		t.Skip(err)
	}
	pgctl, err := bin("pg_ctl")
	if err != nil {
		t.Skip(err)
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var runAs []string // the command prefix that drops root
	var dbUser string
	if os.Geteuid() == 0 {
		pg, err := user.Lookup("postgres")
		if err != nil {
			t.Skipf("running as root and no postgres user to run PostgreSQL as: %v", err)
		}
		runuser, err := exec.LookPath("runuser")
		if err != nil {
			t.Skipf("running as root and no runuser to drop to the postgres user: %v", err)
		}
		runAs, dbUser = []string{runuser, "-u", "postgres", "--"}, "postgres"
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Skipf("chown %s to postgres: %v", dir, err)
		}
	} else {
		u, err := user.Current()
		if err != nil {
			t.Skipf("current user: %v", err)
		}
		dbUser = u.Username
	}
	return startIn(t, dir, initdb, pgctl, runAs, dbUser)
}

func startIn(t testing.TB, dir, initdb, pgctl string, runAs []string, dbUser string) string {
	t.Helper()
	data, sock := filepath.Join(dir, "data"), dir
	run := func(args ...string) ([]byte, error) {
		argv := append(append([]string{}, runAs...), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		return cmd.CombinedOutput()
	}
	if out, err := run(initdb, "-D", data, "-U", dbUser, "-A", "trust", "--no-sync", "-E", "UTF8"); err != nil {
		t.Skipf("initdb could not make a cluster here: %v\n%s", err, out)
	}
	// No TCP at all: the socket lives in dir, reachable only from here.
	opts := fmt.Sprintf("-c listen_addresses='' -c unix_socket_directories=%s -c fsync=on -c max_connections=50", sock)
	if out, err := run(pgctl, "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		t.Skipf("PostgreSQL did not start here: %v\n%s\n%s", err, out, log)
	}
	t.Cleanup(func() {
		if out, err := run(pgctl, "-D", data, "-m", "immediate", "-w", "stop"); err != nil {
			t.Logf("stop PostgreSQL: %v\n%s", err, out)
		}
	})
	admin := URL(sock, dbUser, "postgres")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE triage"); err != nil {
		t.Fatalf("create database: %v", err)
	}
	return URL(sock, dbUser, "triage")
}

// URL is the postgres:// URL of database db over the unix socket in dir.
func URL(dir, user, db string) string {
	q := url.Values{"host": {dir}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User(user), Path: "/" + db, RawQuery: q.Encode()}).String()
}
