package app_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
)

func TestSwappableCatalogSwapsAndTells(t *testing.T) {
	v1, v2 := apptest.Bundle(t, "v1"), apptest.Bundle(t, "v2")
	_, err := app.NewSwappableCatalog(nil)
	require.Error(t, err)
	cat, err := app.NewSwappableCatalog(v1)
	require.NoError(t, err)
	var _ app.Catalog = cat
	var _ app.CatalogNotifier = cat
	assert.Same(t, v1, cat.Bundle())

	var mu sync.Mutex
	var got []app.CatalogEvent
	stop := cat.Subscribe(func(ev app.CatalogEvent) { mu.Lock(); got = append(got, ev); mu.Unlock() })
	old, err := cat.Swap(v2)
	require.NoError(t, err)
	assert.Same(t, v1, old)
	assert.Same(t, v2, cat.Bundle())
	require.Len(t, got, 1, "told before Swap returns")
	assert.Equal(t, app.CatalogRepinned, got[0].Kind)
	assert.Equal(t, app.Pin{Version: "v1", Digest: v1.Digest()}, got[0].Old)
	assert.Equal(t, app.Pin{Version: "v2", Digest: v2.Digest()}, got[0].New)
	assert.Equal(t, v1.Digest(), v2.Digest(), "the version label is not digested, yet a new label is a new pin")

	_, err = cat.Swap(apptest.Bundle(t, "v2"))
	require.NoError(t, err)
	assert.Len(t, got, 1, "the same pin is swapped in silently")
	_, err = cat.Swap(nil)
	require.Error(t, err)

	stop()
	stop()
	_, err = cat.Swap(v1)
	require.NoError(t, err)
	assert.Len(t, got, 1, "an ended subscription hears nothing")
}

func TestSurfaceSubscribe(t *testing.T) {
	sys := &apptest.System{}
	s, _, adm := newSurface(t, sys, 1, 5*time.Second)
	assert.Same(t, adm, s.Admission())
	assert.Equal(t, 5*time.Second, s.RequestTimeout())
	called := false
	stop := s.Subscribe(func(app.CatalogEvent) { called = true })
	stop()
	assert.False(t, called, "a fixed catalogue never tells")

	cat, err := app.NewSwappableCatalog(apptest.Bundle(t, "v1"))
	require.NoError(t, err)
	s, err = app.New(app.Config{Catalog: cat, Sources: map[string]app.Source{"files": {System: sys}}, Admission: adm, Audit: &apptest.Audit{}})
	require.NoError(t, err)
	var pins []app.Pin
	defer s.Subscribe(func(ev app.CatalogEvent) { pins = append(pins, ev.New) })()
	_, err = cat.Swap(apptest.Bundle(t, "v2"))
	require.NoError(t, err)
	require.Len(t, pins, 1)
	assert.Equal(t, "v2", pins[0].Version)
	assert.Equal(t, "v2", s.Bundle().Version(), "the surface answers from the new bundle")
}
