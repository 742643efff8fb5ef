package distinct

import (
	"math/rand/v2"
	"testing"
)

// TestPairs: keys added one at a time and in batches (across the tables'
// doublings, with repeats) are each held once, and nothing else is.
func TestPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	want := map[uint64]bool{}
	p := NewPairs(0)
	if p.Bytes() != 8*pairsMin || (*Pairs)(nil).Bytes() != 0 {
		t.Fatalf("an empty set takes %d bytes", p.Bytes())
	}
	var batch []uint64
	for i := range 100_000 {
		k := uint64(rng.IntN(300))<<32 | uint64(1+rng.IntN(1000)) // many repeats
		want[k] = true
		if i%3 == 0 {
			p.Add(k)
			continue
		}
		if batch = append(batch, k); len(batch) == 300 || i%1000 == 999 {
			p.AddKeys(batch)
			batch = batch[:0]
		}
	}
	p.AddKeys(batch)
	if p.Len() != len(want) {
		t.Fatalf("%d keys, want %d", p.Len(), len(want))
	}
	if p.Len() > int(p.Bytes()/8)*3/4 {
		t.Fatalf("%d keys in %d slots", p.Len(), p.Bytes()/8)
	}
	seen := map[uint64]bool{}
	for k := range p.All() {
		if !want[k] || seen[k] {
			t.Fatalf("key %x yielded, not added or twice", k)
		}
		seen[k] = true
	}
	if len(seen) != len(want) {
		t.Fatalf("%d keys yielded, want %d", len(seen), len(want))
	}
	for range (*Pairs)(nil).All() {
		t.Fatal("a nil set yields a key")
	}
}
