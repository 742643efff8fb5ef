package config

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"sutura.dev/runtime"
)

// The environment variables that steer loading.
const (
	// EnvConfigDir names the configuration directory.
	EnvConfigDir = "SUTURA_CONFIG_DIR"
	// EnvEnvironment names the environment: development, test or production.
	EnvEnvironment = "SUTURA_ENVIRONMENT"
	// EnvPrefix starts every variable that sets a key; the rest of the
	// name is the key's levels separated by "__".
	EnvPrefix = "SUTURA__"
)

// BaseFile is the first file layer, read from the configuration directory.
const BaseFile = "base.yaml"

// maxFileBytes bounds a configuration file.
const maxFileBytes = 1 << 20

// Env is the process environment as a map from name to value. Loading
// reads only SUTURA_CONFIG_DIR, SUTURA_ENVIRONMENT and the SUTURA__
// variables, and only from this map, so tests are hermetic.
type Env map[string]string

// OSEnv returns the environment of the running process.
func OSEnv() Env {
	env := Env{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// Load applies every layer for env (see the package documentation),
// validates the result, resolves relative paths against the
// configuration directory, reads the secret files and refuses unsafe
// combinations. On failure it returns a nil Config and every refusal it
// found, each an [*Error] (list them with [Errors]); no message contains
// a configured value.
func Load(env Env) (*Config, error) { return LoadWith(env) }

// LoadWith is Load with command-line flags as the highest layer: each
// override is applied after the environment variables, and a refusal of
// its value names the flag as its layer.
func LoadWith(env Env, overrides ...Override) (*Config, error) {
	var errs errList
	environment, ok := parseEnvironment(env[EnvEnvironment])
	if !ok {
		errs.add(&Error{Layer: EnvEnvironment, Reason: "must be one of development, test, production"})
	}
	dir, dirErr := configDir(env[EnvConfigDir])
	if dirErr != nil {
		errs.add(dirErr)
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}

	cfg := defaults()
	cfg.Environment, cfg.Dir = environment, dir
	origins := map[string]origin{}
	if dir != "" {
		for _, name := range []string{BaseFile, string(environment) + ".yaml"} {
			path := filepath.Join(dir, name)
			data, found, err := readLayerFile(path)
			if err != nil {
				errs.add(err)
				continue
			}
			if found {
				if name == BaseFile {
					cfg.baseFound = true
				}
				applyYAML(cfg, origins, path, data, &errs)
				continue
			}
			if yml := strings.TrimSuffix(path, ".yaml") + ".yml"; fileExists(yml) {
				// A layer spelt .yml would otherwise be skipped in silence,
				// and the demo served in its place.
				errs.add(&Error{Layer: yml, Reason: "is not read: the layer is named " + name + " (rename the file)"})
			}
		}
	}
	applyEnv(cfg, origins, env, &errs)
	applyOverrides(cfg, origins, overrides, &errs)
	if len(errs) > 0 {
		return nil, errs.err()
	}
	return finish(cfg, origins)
}

// finish validates an applied configuration, resolves its paths, reads
// its secrets and checks the unsafe combinations.
func finish(cfg *Config, origins map[string]origin) (*Config, error) {
	cfg.origins = origins
	c := checker{cfg: cfg, origins: origins}
	c.validate()
	if len(c.errs) > 0 {
		return nil, c.errs.err()
	}
	c.normalize()
	cfg.Audit.SinkChosen = c.isSet("audit.sink")
	c.resolvePaths()
	c.readSecrets()
	c.unsafe()
	if len(c.errs) > 0 {
		return nil, c.errs.err()
	}
	return cfg, nil
}

// defaults returns the built-in defaults layer.
func defaults() *Config {
	return &Config{
		Server: Server{
			Host:                  "127.0.0.1",
			Port:                  8080,
			RequestTimeoutSeconds: 30,
			MaxBodyBytes:          65536,
			AllowedHosts:          []string{},
			AgentSurface:          AgentSurface{Enabled: true},
			RateLimit:             RateLimit{PerSecond: 50, Burst: 100},
			TrustedProxies:        []string{},
			MaxConnections:        runtime.DefaultMaxConnections(),
		},
		Security: Security{
			Inbound: Inbound{ScopeClaim: "scope", GroupsClaim: "groups", JWKSMaxStaleSeconds: 3600},
		},
		Governance: Governance{LookupLegCeiling: 3, SourceCeiling: 4, MaxLegRows: 1000000,
			MaxScanBytesPerQuestion: 1 << 40, BudgetLedger: LedgerMemory},
		Runtime: Runtime{
			MaxConcurrentQueries:    8,
			AdmissionTimeoutSeconds: 5,
			WorkingSetMaxBytes:      1 << 30,
			ShutdownGraceSeconds:    15,
		},
		Prompt:   Prompt{CatalogProse: ProseQuoted},
		Audit:    Audit{Sink: SinkStderr},
		Log:      Log{Format: LogText},
		Catalogs: []Catalog{},
		Sources:  map[string]Source{},
	}
}

// parseEnvironment reads SUTURA_ENVIRONMENT; empty means development.
func parseEnvironment(s string) (Environment, bool) {
	switch e := Environment(s); e {
	case "":
		return Development, true
	case Development, Test, Production:
		return e, true
	}
	return "", false
}

// configDir checks SUTURA_CONFIG_DIR and makes it absolute; empty means
// there are no file layers.
func configDir(s string) (string, *Error) {
	if s == "" {
		return "", nil
	}
	info, err := os.Stat(s)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &Error{Layer: EnvConfigDir, Reason: "does not name an existing directory", Err: err}
	case err != nil:
		return "", &Error{Layer: EnvConfigDir, Reason: "names a directory that cannot be read", Err: err}
	case !info.IsDir():
		return "", &Error{Layer: EnvConfigDir, Reason: "does not name a directory"}
	}
	if abs, err := filepath.Abs(s); err == nil {
		s = abs
	}
	return s, nil
}

// fileExists reports whether path names something that exists.
func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// readLayerFile reads an optional layer file; found is false when it
// does not exist.
func readLayerFile(path string) (data []byte, found bool, _ *Error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, &Error{Layer: path, Reason: "cannot be read", Err: err}
	case !info.Mode().IsRegular():
		return nil, false, &Error{Layer: path, Reason: "is not a regular file"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false, &Error{Layer: path, Reason: "cannot be read", Err: err}
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, false, &Error{Layer: path, Reason: "cannot be read", Err: err}
	}
	if len(data) > maxFileBytes {
		return nil, false, &Error{Layer: path, Reason: "is larger than 1 MiB"}
	}
	return data, true, nil
}

// applyYAML applies one YAML document, named layer in messages, onto cfg.
func applyYAML(cfg *Config, origins map[string]origin, layer string, data []byte, errs *errList) {
	root, err := parseDocument(data)
	if err != nil {
		err.Layer = layer
		errs.add(err)
		return
	}
	if isNull(root) {
		return
	}
	a := &applier{layer: layer, positions: true, origins: origins, errs: errs}
	if root.Kind != yaml.MappingNode {
		a.fail(root, "", "expected a mapping of keys at the top level")
		return
	}
	a.apply(reflect.ValueOf(cfg).Elem(), root, nil, "")
}

// quotedPunct matches a punctuation mark quoted in a yaml message.
var quotedPunct = regexp.MustCompile(`'[[:punct:]]'`)

// yamlLine finds the line yaml reports a syntax error at.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// parseDocument parses exactly one YAML document into a node tree. A
// syntax error keeps yaml's description only when it cannot quote the
// input.
func parseDocument(data []byte) (root *yaml.Node, e *Error) {
	defer func() {
		if r := recover(); r != nil { // the parser must not take the process down
			root, e = nil, &Error{Reason: "is not valid YAML"}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, syntaxError(err, data)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &Error{Reason: "holds more than one YAML document"}
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		return doc.Content[0], nil
	}
	return nil, nil
}

// syntaxError turns a yaml parse error in data into an [*Error] without
// its layer. A tab that indents a line is named as the cause when the
// parser stumbles there, whatever its own words.
func syntaxError(err error, data []byte) *Error {
	msg := err.Error()
	e := &Error{Reason: "is not valid YAML"}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if tab := tabIndentLine(data); tab > 0 && (tab == e.Line || strings.Contains(msg, "tab character")) {
		e.Line, e.Reason = tab, "is not valid YAML: tabs cannot indent YAML; indent with spaces"
		return e
	}
	// Messages that quote anchors, tags or values are dropped whole; a
	// quoted punctuation mark (did not find expected ',' or ']') is kept.
	if msg != "" && !strings.ContainsAny(quotedPunct.ReplaceAllString(msg, ""), "'\"`") && len(msg) < 120 {
		e.Reason += ": " + msg
	}
	return e
}

// tabIndentLine returns the 1-based line of the first line indented with a
// tab, or 0.
func tabIndentLine(text []byte) int {
	for i, l := range bytes.Split(text, []byte("\n")) {
		indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
		if bytes.IndexByte(indent, '\t') >= 0 && len(bytes.TrimSpace(l)) > 0 {
			return i + 1
		}
	}
	return 0
}

// applyEnv applies the SUTURA__ variables in name order, so that a
// deeper variable (SUTURA__SECURITY__INBOUND__ISSUER) overrides a
// shallower one that set the whole mapping (SUTURA__SECURITY__INBOUND).
func applyEnv(cfg *Config, origins map[string]origin, env Env, errs *errList) {
	var names []string
	for name := range env {
		if strings.HasPrefix(name, EnvPrefix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		levels := strings.Split(strings.ToLower(name[len(EnvPrefix):]), "__")
		key := strings.Join(levels, ".")
		if slices.Contains(levels, "") {
			errs.add(&Error{Layer: name, Key: key, Reason: "has an empty level in its name (levels are separated by exactly two underscores)"})
			continue
		}
		value, err := parseDocument([]byte(env[name]))
		if err != nil {
			errs.add(&Error{Layer: name, Key: key, Reason: "is not a valid YAML value (quote it)"})
			continue
		}
		if isNull(value) {
			continue
		}
		// Wrap the value in one mapping per level and apply it like a
		// file, so the same checks and messages hold.
		node := value
		for i := len(levels) - 1; i >= 0; i-- {
			node = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: levels[i]}, node,
			}}
		}
		a := &applier{layer: name, origins: origins, errs: errs}
		a.apply(reflect.ValueOf(cfg).Elem(), node, nil, "")
	}
}
