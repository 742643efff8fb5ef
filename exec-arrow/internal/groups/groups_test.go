package groups

import (
	"math/rand/v2"
	"testing"
)

// A table gives each key met an id in the order met, and the same id when
// met again, whatever its layout: a direct table, a map, or keys held
// whole; growing a radix re-keys the groups without changing an id, up to
// keys too wide to pack; Parts gives each id's key back.
func TestIDsHoldAcrossLayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	g := New(12, []uint64{4, 3})
	if !g.Packed() || g.dense == nil {
		t.Fatal("12 × 4 × 3 keys: want a direct table")
	}
	var met []Key
	ids := map[Key]int32{}
	meet := func(k Key) {
		t.Helper()
		var id int32
		if g.Packed() {
			key := uint64(k[0])
			for d := range 2 {
				key = key*g.Radix(d) + uint64(k[d+1])
			}
			out := []int32{0}
			g.PackedIDs([]uint64{key}, out)
			id = out[0]
		} else {
			id = g.WideID(k)
		}
		if want, ok := ids[k]; ok && id != want {
			t.Fatalf("key %v: id %d, first met as %d", k[:3], id, want)
		} else if !ok {
			if id != int32(len(met)) {
				t.Fatalf("new key %v: id %d, want %d", k[:3], id, len(met))
			}
			ids[k] = id
			met = append(met, k)
		}
	}
	cards := []int{3, 2}
	for round := range 7 {
		for range 200 {
			meet(Key{uint32(rng.IntN(12)), uint32(rng.IntN(cards[0] + 1)), uint32(rng.IntN(cards[1] + 1))})
		}
		switch round {
		case 0:
			cards[0] = 6 // a larger direct table
		case 1:
			cards[0] = 5_000 // a map
		case 3:
			cards[0], cards[1] = 1<<31, 1<<31 // wider than 62 bits: held whole
		}
		g.Grow(0, cards[0])
		g.Grow(1, cards[1])
		if g.Len() != len(met) {
			t.Fatalf("round %d: %d groups, want %d", round, g.Len(), len(met))
		}
		for id, k := range met {
			if got := g.Parts(id); got != k {
				t.Fatalf("round %d: id %d is %v, want %v", round, id, got[:3], k[:3])
			}
			if got := g.ID(k); got != int32(id) {
				t.Fatalf("round %d: key %v has id %d, want %d", round, k[:3], got, id)
			}
		}
	}
	if g.Packed() || g.wide == nil || g.Bytes() < int64(24*len(met)) {
		t.Fatalf("after the widest radix: packed %v, %d bytes for %d groups", g.Packed(), g.Bytes(), len(met))
	}
}
