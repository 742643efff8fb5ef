package kernel

import (
	"fmt"
	"testing"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/distinct"
)

// TestDistinctSetBatches: text values and cached codes reach a distinct
// set aheadBatch pairs at a time; a batch boundary, a short last batch,
// null texts and empty codes (0) change nothing: the counts are a map's.
func TestDistinctSetBatches(t *testing.T) {
	const n, ng = 3*aheadBatch + 17, 5
	dict := make([]string, 200)
	for i := range dict {
		dict[i] = fmt.Sprintf("session-%03d", i)
	}
	c := &column.Column{Type: domain.TypeText, N: n, Idx: make([]int32, n), Dict: dict, Valid: make([]byte, (n+7)/8)}
	codes := make([]int32, n)
	rows, gids := make([]int32, 0, n), make([]int32, 0, n)
	for r := range n {
		c.Idx[r] = int32((r * 37) % len(dict))
		codes[r] = int32(r*13) % 151 // 0 now and then: no value
		g := (r * 7) % ng
		if r%11 != 0 {
			c.Valid[r/8] |= 1 << (r % 8)
		}
		if r%5 != 3 { // not every row selected
			rows, gids = append(rows, int32(r)), append(gids, int32(g))
		}
	}
	wantTexts, wantCodes := map[string]bool{}, map[string]bool{}
	for k, r := range rows {
		if c.IsValid(r) {
			wantTexts[fmt.Sprint(gids[k], " ", dict[c.Idx[r]])] = true
		}
		if codes[r] > 0 {
			wantCodes[fmt.Sprint(gids[k], " ", codes[r])] = true
		}
	}
	count := func(want map[string]bool) []int64 {
		out := make([]int64, ng)
		for k := range want {
			out[k[0]-'0']++
		}
		return out
	}
	texts := &termState{dset: distinct.New(t.TempDir())}
	defer texts.dset.Close()
	texts.updateSet(c, rows, gids)
	texts.updateSet(c, rows, gids) // every pair again
	got, err := texts.dset.Counts(ng, func(int64) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := count(wantTexts); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("texts: got %v, want %v", got, want)
	}
	cs := &termState{dset: distinct.New(t.TempDir())}
	defer cs.dset.Close()
	updateCodes(cs, codes, 0, rows, gids)
	updateCodes(cs, codes, 0, rows[:aheadBatch+1], gids[:aheadBatch+1])
	got, err = cs.dset.Counts(ng, func(int64) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := count(wantCodes); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("codes: got %v, want %v", got, want)
	}
}
