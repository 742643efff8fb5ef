package app

import (
	"errors"
	"slices"
	"sync"
	"time"

	"sutura.dev/domain"
)

// Pin identifies a bundle: its version label and its digest.
type Pin struct {
	Version string `json:"version"`
	Digest  string `json:"digest"`
}

// PinOf returns the pin of b.
func PinOf(b *domain.Bundle) Pin { return Pin{Version: b.Version(), Digest: b.Digest()} }

// CatalogEventKind names what happened to the catalogue.
type CatalogEventKind string

// CatalogRepinned: a refresh swapped in a bundle with another pin.
const CatalogRepinned CatalogEventKind = "catalog_repinned"

// CatalogEvent is something that happened to the catalogue outside any
// call. A question already running keeps the bundle it started with.
type CatalogEvent struct {
	Kind CatalogEventKind `json:"kind"`
	Time time.Time        `json:"time"`
	Old  Pin              `json:"old"`
	New  Pin              `json:"new"`
}

// SwappableCatalog is a Catalog whose bundle a refresh replaces whole and
// atomically, telling its subscribers (CatalogNotifier). The composition
// root builds it over the bundle validated at start and calls Swap with
// each re-read, re-pinned and re-validated bundle. It is safe for
// concurrent use.
type SwappableCatalog struct {
	mu     sync.Mutex
	bundle *domain.Bundle
	subs   []subscriber // in subscription order
	next   int
	now    func() time.Time
}

// NewSwappableCatalog returns a catalogue serving b.
func NewSwappableCatalog(b *domain.Bundle) (*SwappableCatalog, error) {
	if b == nil {
		return nil, errors.New("app: a catalogue needs a bundle")
	}
	return &SwappableCatalog{bundle: b, now: time.Now}, nil
}

// Bundle returns the bundle in force.
func (c *SwappableCatalog) Bundle() *domain.Bundle {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bundle
}

// Swap puts b in force and returns the bundle it replaces. When b's pin
// (version or digest) differs from the old one, every subscriber is told
// with a CatalogRepinned event before Swap returns; a bundle with the same
// pin replaces the old one silently. b must have passed CheckBundle.
func (c *SwappableCatalog) Swap(b *domain.Bundle) (old *domain.Bundle, err error) {
	if b == nil {
		return nil, errors.New("app: cannot swap in a nil bundle")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old, c.bundle = c.bundle, b
	if PinOf(old) == PinOf(b) {
		return old, nil
	}
	ev := CatalogEvent{Kind: CatalogRepinned, Time: c.now().UTC(), Old: PinOf(old), New: PinOf(b)}
	// Subscribers run under the lock so that they see swaps in order; they
	// must not block and must not call back into the catalogue.
	for _, s := range c.subs {
		s.fn(ev)
	}
	return old, nil
}

// Subscribe implements CatalogNotifier.
func (c *SwappableCatalog) Subscribe(fn func(CatalogEvent)) (unsubscribe func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.next
	c.next++
	c.subs = append(c.subs, subscriber{id: id, fn: fn})
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.subs = slices.DeleteFunc(c.subs, func(s subscriber) bool { return s.id == id })
		})
	}
}

type subscriber struct {
	id int
	fn func(CatalogEvent)
}
