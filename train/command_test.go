package train

import (
	"reflect"
	"testing"
)

func TestParseDatasets(t *testing.T) {
	names, dirs, err := ParseDatasets([]string{"bundled=out/b1", "out/b5", " mbpp=out/m ", ""})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(names, []string{"bundled", "mbpp"}) || !reflect.DeepEqual(dirs, [][]string{{"out/b1", "out/b5"}, {"out/m"}}) {
		t.Errorf("got %v %v", names, dirs)
	}
	for _, bad := range [][]string{
		{"out/b1", "mbpp=out/m"},     // first folder unnamed
		{"a=x"},                      // one dataset
		{"a=x", "a=y"},               // a name twice
		{"a=", "b=y"}, {"=x", "b=y"}, // empty parts
		{},
	} {
		if _, _, err := ParseDatasets(bad); err == nil {
			t.Errorf("ParseDatasets(%q) = nil error", bad)
		}
	}
}
