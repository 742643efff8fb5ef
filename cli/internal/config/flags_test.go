package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFlagsAreTheHighestLayer(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"base.yaml": "server: {host: 127.0.0.1, port: 8081}\n"})
	env := Env{EnvConfigDir: dir, "SUTURA__SERVER__PORT": "8082"}
	cfg, err := LoadWith(env, Override{Flag: "--port", Key: "server.port", Value: "9000"}, Override{Flag: "--host", Key: "server.host", Value: "::1"})
	require.NoError(t, err)
	assert.Equal(t, 9000, cfg.Server.Port, "the flag wins over the variable and the file")
	assert.Equal(t, "::1", cfg.Server.Host)

	cfg, err = LoadWith(env, Override{Flag: "--port", Key: "server.port", Value: ""})
	require.NoError(t, err)
	assert.Equal(t, 8082, cfg.Server.Port, "an empty flag changes nothing")

	for _, tc := range []struct {
		name     string
		env      Env
		override Override
		want     refusal
	}{
		{"out of range", nil, Override{Flag: "--port", Key: "server.port", Value: "70000"}, refusal{key: "server.port", layer: "--port", value: "70000"}},
		{"not a number", nil, Override{Flag: "--port", Key: "server.port", Value: planted}, refusal{key: "server.port", layer: "--port"}},
		{"not an IP literal", nil, Override{Flag: "--host", Key: "server.host", Value: "localhost"}, refusal{key: "server.host", layer: "--host", value: "localhost"}},
		{"the unsafe combinations still hold", Env{EnvEnvironment: "production"}, Override{Flag: "--port", Key: "server.port", Value: "0"},
			refusal{key: "server.port", layer: "--port", value: "zz-none"}},
		{"off loopback needs TLS declared", nil, Override{Flag: "--host", Key: "server.host", Value: "0.0.0.0"},
			refusal{key: "server.host", layer: "--host", also: "tls_terminated_upstream", value: "zz-none"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := Env{}
			for k, v := range tc.env {
				e[k] = v
			}
			_, err := LoadWith(e, tc.override)
			requireRefusal(t, err, "", tc.want)
		})
	}
}

func TestLogFormat(t *testing.T) {
	cfg, _ := mustLoad(t, nil, nil)
	assert.Equal(t, LogText, cfg.Log.Format)
	cfg, _ = mustLoad(t, map[string]string{"base.yaml": "log: {format: json}\n"}, nil)
	assert.Equal(t, LogJSON, cfg.Log.Format)
	_, dir, err := loadDir(t, map[string]string{"base.yaml": "log: {format: " + planted + "}\n"}, nil)
	requireRefusal(t, err, dir, refusal{key: "log.format", layer: "base.yaml", at: ":1:15", also: "text, json"})
}

func TestAuditSinkChosen(t *testing.T) {
	cfg, _ := mustLoad(t, nil, nil)
	assert.Equal(t, SinkStderr, cfg.Audit.Sink)
	assert.False(t, cfg.Audit.SinkChosen, "the default is not a choice")
	cfg, _ = mustLoad(t, nil, Env{"SUTURA__AUDIT__SINK": "stderr"})
	assert.True(t, cfg.Audit.SinkChosen)
	cfg, _ = mustLoad(t, map[string]string{"base.yaml": "audit: {sink: stderr}\n"}, nil)
	assert.True(t, cfg.Audit.SinkChosen)
}

// A key no layer set is refused from the defaults, not from whichever
// layer set another key of its section: the flag --port says nothing of
// server.agent_surface.enabled.
func TestDefaultedKeyNamesTheDefaults(t *testing.T) {
	_, err := LoadWith(Env{"SUTURA__SERVER__HOST": "0.0.0.0", "SUTURA__SERVER__TLS_TERMINATED_UPSTREAM": "true"},
		Override{Flag: "--port", Key: "server.port", Value: "9000"})
	require.Error(t, err)
	var found bool
	for _, e := range Errors(err) {
		if e.Key == "server.agent_surface.enabled" {
			found = true
			assert.Equal(t, "defaults", e.Layer, e.Error())
		}
		assert.NotEqual(t, "--port", e.Layer, "the flag set only server.port: %s", e.Error())
	}
	assert.True(t, found, "server.agent_surface.enabled is refused: %v", err)
}
