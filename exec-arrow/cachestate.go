package engine

import (
	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/kernel"
)

// tally counts one table of an execution as found in the cache (it read
// no bytes from its files) or loaded from its files.
func tally(m *kernel.Meter, fileBytes int64) {
	if fileBytes > 0 {
		m.Loaded.Add(1)
	} else {
		m.Cached.Add(1)
	}
}

// cacheState is whether an execution answered from cached columns
// (docs/contract.md §16): hit when every table it read was cached, miss
// when none was, partial otherwise. A streamed base table counts as read
// from its files, so a streamed base joined to cached tables is partial.
func cacheState(m *kernel.Meter) string {
	cached, loaded := m.Cached.Load(), m.Loaded.Load()
	switch {
	case cached > 0 && loaded == 0:
		return domain.CacheHit
	case cached == 0:
		return domain.CacheMiss
	}
	return domain.CachePartial
}
