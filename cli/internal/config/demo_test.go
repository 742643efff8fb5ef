package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A configuration directory without base.yaml never serves the demo in
// silence: a layer spelt .yml is refused by name, and the start notice
// says which of the three cases applies.
func TestDirectoryWithoutBaseYAML(t *testing.T) {
	catalogue := "catalogs: [{name: shop, kind: markdown, dir: cat, version: v1}]\n"
	for _, tc := range []struct {
		name   string
		files  map[string]string
		refuse string // the file refused, "" when it loads
		demo   string // DemoBecause, relative to the directory
	}{
		{"base.yml", map[string]string{"base.yml": catalogue}, "base.yml", ""},
		{"development.yml", map[string]string{"base.yaml": "", "development.yml": catalogue}, "development.yml", ""},
		{"no file", map[string]string{}, "", "base.yaml does not exist"},
		{"only an environment file", map[string]string{"development.yaml": "server: {port: 8081}\n"}, "", "base.yaml does not exist"},
		{"base.yaml without catalogs", map[string]string{"base.yaml": "server: {port: 8081}\n"}, "", "the configuration names no catalogs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, dir, err := loadDir(t, tc.files, nil)
			if tc.refuse != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), filepath.Join(dir, tc.refuse)+": is not read: the layer is named ")
				return
			}
			require.NoError(t, err)
			want := tc.demo
			if want == "base.yaml does not exist" {
				want = filepath.Join(dir, want)
			}
			assert.Equal(t, want, cfg.DemoBecause())
		})
	}
	cfg, err := Load(Env{})
	require.NoError(t, err)
	assert.Equal(t, "SUTURA_CONFIG_DIR is unset", cfg.DemoBecause())
	cfg, _ = mustLoad(t, map[string]string{"base.yaml": catalogue}, nil)
	assert.Empty(t, cfg.DemoBecause(), "a catalogue is configured")
}

// A tab that indents a line of a layer file is named as the cause, at its
// line, whatever the parser's own words for it.
func TestTabIndentInLayerFile(t *testing.T) {
	for _, text := range []string{
		"server:\n\tport: 8081\n",
		"server:\n  allowed_hosts:\n\t- example.com\n",
		"server:\n  port: 8081\n\thost: 127.0.0.1\n",
	} {
		_, dir, err := loadDir(t, map[string]string{"base.yaml": text}, nil)
		require.Error(t, err)
		errs := Errors(err)
		require.Len(t, errs, 1)
		assert.Equal(t, filepath.Join(dir, "base.yaml"), errs[0].Layer)
		assert.Equal(t, "is not valid YAML: tabs cannot indent YAML; indent with spaces", errs[0].Reason, text)
		assert.Equal(t, len(strings.Split(strings.Split(text, "\t")[0], "\n")), errs[0].Line, "the line of the tab")
	}
}
