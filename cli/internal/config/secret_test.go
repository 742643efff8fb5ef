package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestSecretPrintsRedacted(t *testing.T) {
	s := newSecret([]byte(planted))
	var p *Secret = &s
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s", "%-20v", "%T:%v"} {
		for name, arg := range map[string]any{"value": s, "pointer": p} {
			got := fmt.Sprintf(verb, arg)
			assert.NotContains(t, got, planted, "%s of a %s", verb, name)
			if verb != "%T:%v" {
				assert.Equal(t, redacted, got, "%s of a %s", verb, name)
			}
		}
	}
	assert.Equal(t, redacted, s.String())
	assert.Equal(t, redacted, s.GoString())

	j, err := json.Marshal(map[string]any{"s": s})
	require.NoError(t, err)
	assert.JSONEq(t, `{"s":"[redacted]"}`, string(j))

	y, err := yaml.Marshal(map[string]any{"s": s})
	require.NoError(t, err)
	assert.Equal(t, "s: '[redacted]'\n", string(y))

	text, err := s.MarshalText()
	require.NoError(t, err)
	assert.Equal(t, redacted, string(text))

	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("m", "token", s)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("m", "token", s)
	assert.NotContains(t, logged.String(), planted)
}

func TestSecretValue(t *testing.T) {
	s := newSecret([]byte(planted))
	assert.True(t, s.Set())
	got := s.Reveal()
	assert.Equal(t, []byte(planted), got)
	got[0] = 'X'
	assert.Equal(t, []byte(planted), s.Reveal(), "Reveal returns a copy")

	var zero Secret
	assert.False(t, zero.Set())
	assert.Nil(t, zero.Reveal())
	assert.Equal(t, redacted, fmt.Sprint(zero))
	assert.False(t, zero.Equal(zero), "absent secrets are never equal")
	assert.True(t, s.Equal(newSecret([]byte(planted))))
	assert.False(t, s.Equal(newSecret([]byte(planted+"x"))))
}

// TestConfigPrintsSecretsRedacted loads every secret and prints the whole
// configuration every way a log line or a doctor might.
func TestConfigPrintsSecretsRedacted(t *testing.T) {
	files := map[string]string{
		"base.yaml": `
security:
  identity: single-user
  access_token_file: access
  metrics_token_file: metrics
sources:
  pg: {kind: postgres, posture: shared-service-user, host: localhost, transport_mode: plaintext, database: d, user: u, password_file: pg}
`,
		"access":  planted + "-access\n",
		"metrics": planted + "-metrics\n",
		"pg":      planted + "-pg\n",
	}
	cfg, _ := mustLoad(t, files, nil)
	require.True(t, cfg.Sources["pg"].Password.Set())

	outputs := map[string]string{}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		outputs[verb] = fmt.Sprintf(verb, cfg)
		outputs[verb+" value"] = fmt.Sprintf(verb, *cfg)
		outputs[verb+" security"] = fmt.Sprintf(verb, cfg.Security)
		outputs[verb+" sources"] = fmt.Sprintf(verb, cfg.Sources)
	}
	j, err := json.Marshal(cfg)
	require.NoError(t, err)
	outputs["json"] = string(j)
	y, err := yaml.Marshal(cfg)
	require.NoError(t, err)
	outputs["yaml"] = string(y)
	r, err := cfg.Redacted()
	require.NoError(t, err)
	outputs["Redacted"] = string(r)

	for name, out := range outputs {
		assert.NotContains(t, out, planted, name)
	}
	assert.Contains(t, outputs["%+v"], redacted)
	assert.Contains(t, outputs["json"], `"AccessToken":"[redacted]"`)
}
