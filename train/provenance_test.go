package train

import (
	"errors"
	"runtime/debug"
	"testing"
)

func TestRevisionOf(t *testing.T) {
	git := func() (string, string, error) { return "g1", "true", nil }
	noGit := func() (string, string, error) { return "", "", errors.New("not a git checkout") }
	stamped := []debug.BuildSetting{{Key: "vcs.revision", Value: "b1"}, {Key: "vcs.modified", Value: "false"}}
	for _, c := range []struct {
		name     string
		settings []debug.BuildSetting
		ldC, ldM string
		git      func() (string, string, error)
		want     revision
	}{
		{"build info first", stamped, "l1", "true", git, revision{"b1", "false", "buildinfo"}},
		{"then ldflags", nil, "l1", "true", git, revision{"l1", "true", "ldflags"}},
		{"then git", []debug.BuildSetting{{Key: "GOOS", Value: "linux"}}, "", "", git, revision{"g1", "true", "git"}},
		{"else unknown", nil, "", "", noGit, revision{"unknown", "", "none"}},
		{"no git at all", nil, "", "", nil, revision{"unknown", "", "none"}},
	} {
		if got := revisionOf(c.settings, c.ldC, c.ldM, c.git); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}
