package sandbox

import (
	"context"
	"regexp"
	"testing"
	"time"

	"triage/corpus"
)

// TestProgramRecursionRoomIsTheTests: a call into the program process has
// the recursion room its caller had in the judge, as when the program ran
// beside the test: a recursion of the program's from a test function (or a
// helper of the test's), and the same recursion of the test file's own, go
// equally deep, through the direct runner and pytest's run (calibrate).
// With coverage the program's frames pay its line tracer's calls as they
// did beside the test; the judge's own frames are not traced any more.
func TestProgramRecursionRoomIsTheTests(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two pools")
	}
	const recursion = "def _room(n=0):\n    try:\n        return _room(n + 1)\n    except RecursionError:\n        return n\n"
	program := "def room(n=0):\n    try:\n        return room(n + 1)\n    except RecursionError:\n        return n\n"
	tests := "from solution import room\n\n\n" + recursion + "\n\ndef test_room():\n    assert (room(), _room()) == -1\n\n\n" +
		"def test_from_a_helper():\n    def helper():\n        return room(), _room()\n    assert helper() == -1\n"
	pair := regexp.MustCompile(`(?m)^E   assert \((\d+), (\d+)\) == -1`)
	for _, side := range []struct {
		name string
		off  layerSet
	}{{"direct runner", nil}, {"pytest's run", layerSet{layerDirect: true}}} {
		p := ownPool(t, Options{Workers: 1, Timeout: 20 * time.Second, disabled: side.off})
		ex, err := p.RunWith(context.Background(), program, tests, corpus.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := pair.FindAllStringSubmatch(ex.Feedback, -1)
		if len(got) != 2 {
			t.Fatalf("%s: %d rooms in the feedback:\n%s", side.name, len(got), ex.Feedback)
		}
		for _, m := range got {
			if m[1] != m[2] {
				t.Errorf("%s: the program's recursion went %s deep, the test's %s", side.name, m[1], m[2])
			}
		}
	}
}
