package corpus

import "testing"

func TestTasksOfSplits(t *testing.T) {
	tasks := []Task{{ID: "a", Split: "train"}, {ID: "b", Split: "val"}, {ID: "c", Split: "test"}, {ID: "d", Split: "test"}}
	cases := []struct {
		splits []string
		want   []string
		bad    bool
	}{
		{[]string{"test"}, []string{"c", "d"}, false},
		{[]string{"val", "test"}, []string{"b", "c", "d"}, false},
		{[]string{"train"}, []string{"a"}, false},
		{[]string{"all"}, []string{"a", "b", "c", "d"}, false},
		{[]string{"dev"}, nil, true},
	}
	for _, tc := range cases {
		got, err := TasksOfSplits(tasks, tc.splits)
		if (err != nil) != tc.bad {
			t.Fatalf("%v: err %v", tc.splits, err)
		}
		var ids []string
		for _, g := range got {
			ids = append(ids, g.ID)
		}
		if len(ids) != len(tc.want) {
			t.Fatalf("%v: got %v, want %v", tc.splits, ids, tc.want)
		}
		for i := range ids {
			if ids[i] != tc.want[i] {
				t.Fatalf("%v: got %v, want %v", tc.splits, ids, tc.want)
			}
		}
	}
}
