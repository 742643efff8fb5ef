package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/kernel"
)

func TestCacheState(t *testing.T) {
	for name, tc := range map[string]struct {
		files []int64
		want  string
	}{
		"every table cached":     {[]int64{0, 0}, domain.CacheHit},
		"every table from files": {[]int64{10, 20}, domain.CacheMiss},
		"some of each":           {[]int64{0, 20}, domain.CachePartial},
		"streamed, no table":     {nil, domain.CacheMiss},
	} {
		t.Run(name, func(t *testing.T) {
			var m kernel.Meter
			for _, b := range tc.files {
				tally(&m, b)
			}
			assert.Equal(t, tc.want, cacheState(&m))
		})
	}
}
