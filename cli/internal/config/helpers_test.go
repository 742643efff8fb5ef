package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planted is a distinctive value that refusal tests put where the bad
// value goes and then look for in every message: it must never appear.
const planted = "zz-secret-value-77"

// writeFiles writes files (relative path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	}
}

// loadDir writes files into a fresh configuration directory and loads it
// with env; SUTURA_CONFIG_DIR is set to the directory unless env sets it.
// It returns the directory for building expected paths.
func loadDir(t *testing.T, files map[string]string, env Env) (*Config, string, error) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	e := Env{EnvConfigDir: dir}
	for k, v := range env {
		e[k] = v
	}
	cfg, err := Load(e)
	return cfg, dir, err
}

// mustLoad is loadDir that requires success.
func mustLoad(t *testing.T, files map[string]string, env Env) (*Config, string) {
	t.Helper()
	cfg, dir, err := loadDir(t, files, env)
	require.NoError(t, err)
	require.NotNil(t, cfg)
	return cfg, dir
}

// refusal describes the refusal a test expects.
type refusal struct {
	key   string // the dotted key, "" for a refusal of the layer itself
	layer string // a file name under the config dir, a variable name or "defaults"
	at    string // optional ":line:column" after a file layer
	also  string // optional further text the message must contain
	value string // the value that must not be printed; planted when empty
}

// requireRefusal asserts that err holds a refusal of want.key naming the
// layer, and that no message of err contains the offending value.
func requireRefusal(t *testing.T, err error, dir string, want refusal) {
	t.Helper()
	require.Error(t, err)
	value := want.value
	if value == "" {
		value = planted
	}
	assert.NotContains(t, err.Error(), value, "a message repeats the value")

	layer := want.layer
	if strings.HasSuffix(layer, ".yaml") {
		layer = filepath.Join(dir, layer)
	}
	errs := Errors(err)
	require.NotEmpty(t, errs, "no *config.Error in %v", err)
	var found *Error
	for _, e := range errs {
		assert.NotEmpty(t, e.Layer, "an error without a layer: %v", e)
		if e.Key == want.key && (e.Layer == layer || found == nil) {
			found = e
		}
	}
	require.NotNil(t, found, "no refusal of %q in:\n%v", want.key, err)
	msg := found.Error()
	t.Log(msg)
	assert.Equal(t, layer, found.Layer, msg)
	assert.Contains(t, msg, want.key)
	assert.Contains(t, msg, layer+want.at)
	if want.also != "" {
		assert.Contains(t, msg, want.also)
	}
}
