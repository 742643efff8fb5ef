// Package exact holds the aggregates whose answer must not depend on the
// order rows arrive in: integer sums with every overflow told (under a
// keep flag, a metric mask, or per mask combination), compensated float
// sums (correct to within one rounding whatever the order) and decimal
// sums, minima and maxima as 128-bit coefficients at one scale
// (docs/reference.md).
package exact

import (
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/i128"
)

// TwoSum adds x to the sum s whose compensation is c (Neumaier's
// compensated summation, with Knuth's branch-free two-sum): t is the
// rounded sum and the rounding error of the addition, which is exact, is
// added to c. The answer is t+c, the sum to within one rounding unless
// its terms cancel catastrophically (docs/reference.md).
func TwoSum(s, c, x float64) (float64, float64) {
	t := s + x
	z := t - s
	e := (s - (t - z)) + (x - z)
	return t, c + e
}

// TwoSumRows adds vals[r] for every r of rows to the sum s with
// compensation c, in registers: even and odd positions in two compensated
// lanes (so two additions are in flight, not one), merged at the end with
// their compensations.
func TwoSumRows(s, c float64, vals []float64, rows []int32) (float64, float64) {
	var s1, c1 float64
	n := len(rows) &^ 1
	for k := 0; k < n; k += 2 {
		x, y := vals[rows[k]], vals[rows[k+1]]
		t := s + x
		z := t - s
		c += (s - (t - z)) + (x - z)
		s = t
		u := s1 + y
		w := u - s1
		c1 += (s1 - (u - w)) + (y - w)
		s1 = u
	}
	if n < len(rows) {
		s, c = TwoSum(s, c, vals[rows[n]])
	}
	return TwoSum(s, c+c1, s1)
}

// Decimals is the exact aggregate of a decimal term: one 128-bit
// coefficient per group (a sum, a min or a max) at one scale for every
// group. A batch whose column has fewer fractional digits is rescaled up
// as it is added; one with more raises the state's scale first. The zero
// value holds no group (Grow adds them).
type Decimals struct {
	v      []i128.Int
	sc     int32
	scaled bool
	// ovf records a value past 38 digits (a sum, or a value rescaled):
	// the term has no value and the question fails.
	ovf bool
}

// align makes the state hold values at scale sc or more and returns the
// power of ten a value at scale sc is multiplied by to be added.
func (d *Decimals) align(sc int32) int32 {
	switch {
	case !d.scaled:
		d.sc, d.scaled = sc, true
		return 0
	case sc > d.sc:
		for i, x := range d.v {
			if x.Sign() == 0 {
				continue
			}
			w, ok := x.MulPow10(sc - d.sc)
			if !ok {
				d.ovf = true
			}
			d.v[i] = w
		}
		d.sc = sc
		return 0
	}
	return d.sc - sc
}

// at is row r of c at the state's scale (f: the power of ten to raise it).
func (d *Decimals) at(c *column.Column, r int32, f int32) i128.Int {
	x := c.DecAt(r)
	if f > 0 {
		var ok bool
		if x, ok = x.MulPow10(f); !ok {
			d.ovf = true
		}
	}
	return x
}

// Sum adds rows rows[k] of c to the groups gids[k] (skipping nulls when
// nulls says c may hold them; one says every row is in group gids[0]).
func (d *Decimals) Sum(c *column.Column, rows, gids []int32, nulls, one bool) {
	f := d.align(c.Scale)
	v := d.v
	nulls = nulls && c.Valid != nil
	if c.Dec == nil && f == 0 {
		// The common case: int64 coefficients at the state's scale, summed
		// in 128 bits, which 2^64 of them cannot pass.
		ints := c.Ints
		if !nulls && one {
			acc := v[gids[0]]
			for _, r := range rows {
				acc = acc.AddInt64(ints[r])
			}
			v[gids[0]] = acc
			return
		}
		if !nulls {
			for k, r := range rows {
				g := gids[k]
				v[g] = v[g].AddInt64(ints[r])
			}
			return
		}
		for k, r := range rows {
			if c.IsValid(r) {
				g := gids[k]
				v[g] = v[g].AddInt64(ints[r])
			}
		}
		return
	}
	for k, r := range rows {
		if nulls && !c.IsValid(r) {
			continue
		}
		g := gids[k]
		w, ok := v[g].Add(d.at(c, r, f))
		if !ok {
			d.ovf = true
		}
		v[g] = w
	}
}

// MinMax keeps the smallest (isMax: largest) value of each group; n
// counts the values of each group.
func (d *Decimals) MinMax(c *column.Column, rows, gids []int32, n []int64, isMax bool) {
	f := d.align(c.Scale)
	v := d.v
	nulls := c.Valid != nil
	for k, r := range rows {
		if nulls && !c.IsValid(r) {
			continue
		}
		g, x := gids[k], d.at(c, r, f)
		if n[g] == 0 || (x.Cmp(v[g]) > 0) == isMax && x != v[g] {
			v[g] = x
		}
		n[g]++
	}
}

// from is src's group sg at d's scale, d's scale raised to src's first
// when src's is finer; src's overflow is d's.
func (d *Decimals) from(src *Decimals, sg int) i128.Int {
	d.ovf = d.ovf || src.ovf
	f := d.align(src.sc)
	x := src.v[sg]
	if f > 0 {
		var ok bool
		if x, ok = x.MulPow10(f); !ok {
			d.ovf = true
		}
	}
	return x
}

// MergeSum adds src's group sg to group dg.
func (d *Decimals) MergeSum(src *Decimals, sg, dg int) {
	x := d.from(src, sg)
	w, ok := d.v[dg].Add(x)
	if !ok {
		d.ovf = true
	}
	d.v[dg] = w
}

// MergeMinMax folds src's group sg into group dg (empty: dg has no value
// yet).
func (d *Decimals) MergeMinMax(src *Decimals, sg, dg int, empty, isMax bool) {
	x := d.from(src, sg)
	if empty || (x.Cmp(d.v[dg]) > 0) == isMax && x != d.v[dg] {
		d.v[dg] = x
	}
}

// Grow adds n groups, each with no value yet.
func (d *Decimals) Grow(n int) {
	for range n {
		d.v = append(d.v, i128.Int{})
	}
}

// Bytes is the memory the groups' coefficients take.
func (d *Decimals) Bytes() int64 { return int64(16 * cap(d.v)) }

// Value is group g's coefficient and scale: its value is x × 10^-sc; ok
// is false when the sum passed 38 digits (or a value did, rescaled), and
// the value does not exist in its type.
func (d *Decimals) Value(g int) (x i128.Int, sc int32, ok bool) {
	x = d.v[g]
	if d.ovf || !x.Fits() {
		return i128.Int{}, 0, false
	}
	return x, d.sc, true
}
