package model

import (
	"strings"
	"testing"

	"triage/model/priority"
)

func TestSerialize(t *testing.T) {
	tok := byteTokenizer{vocab: 256}
	lim := Limits{Feedback: 5, Diagnosis: 4, Edit: 3}
	p := &priority.Edge{Feedback: "abcdefghij", Diagnosis: "xy"}
	got := string(toBytes(SerializeParent(tok, lim, p)))
	if want := MarkerFeedback + "abcde" + MarkerDiagnosis + "xy"; got != want {
		t.Errorf("prefix %q, want %q", got, want)
	}
	if got := string(toBytes(SerializeEdit(tok, lim, "swap the operands"))); got != MarkerEdit+"swa" {
		t.Errorf("edit %q", got)
	}
	// Very long text is cut before encoding but still yields the limit.
	long := &priority.Edge{Feedback: strings.Repeat("z", 1<<20)}
	if n := len(SerializeParent(tok, DefaultLimits(), long)); n != len(MarkerFeedback)+375+len(MarkerDiagnosis) {
		t.Errorf("long feedback gave %d tokens", n)
	}
	if got := SerializeEdit(tok, Limits{}, "x"); string(toBytes(got)) != MarkerEdit {
		t.Errorf("zero limit kept %q", toBytes(got))
	}
}

func toBytes(ids []int32) []byte {
	b := make([]byte, len(ids))
	for i, id := range ids {
		b[i] = byte(id)
	}
	return b
}

func TestMakeBatch(t *testing.T) {
	rows := []rowSpec{{prefix: []int32{1, 2, 3}, edits: [][]int32{{4, 5}, {6}}}}
	b, err := makeBatch(rows, 2, 8, 3)
	if err != nil {
		t.Fatal(err)
	}
	wantSeg := []int32{0, 0, 0, 1, 1, 2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
	wantPos := []int32{0, 1, 2, 3, 4, 3, 0, 0}
	for i, s := range wantSeg {
		if b.segments[i] != s {
			t.Fatalf("segments %v, want %v", b.segments, wantSeg)
		}
	}
	for i, p := range wantPos {
		if b.positions[i] != p {
			t.Fatalf("positions %v, want %v", b.positions[:8], wantPos)
		}
	}
	if b.last[0] != 4 || b.last[1] != 5 || b.last[2] != 0 {
		t.Errorf("last %v", b.last)
	}
	if _, err := makeBatch(rows, 1, 4, 3); err == nil {
		t.Error("row longer than the batch accepted")
	}
	for n, want := range map[int]int{1: 32, 33: 64, 200: 256, 257: 384, 1374: 1408} {
		if got := lengthBucket(n); got != want {
			t.Errorf("lengthBucket(%d) = %d, want %d", n, got, want)
		}
	}
	if rowsBucket(3, 8) != 4 || rowsBucket(9, 8) != 9 || rowsBucket(5, 6) != 6 {
		t.Error("rowsBucket")
	}
}
