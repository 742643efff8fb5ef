package config

import (
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Override is one key set on the command line (sutura serve --port 9000):
// the highest layer, applied after the environment variables. Flag names
// the layer in a refusal ("--port"), and Value is read as a YAML scalar,
// like a variable's.
type Override struct {
	Flag  string
	Key   string // dotted, as in the key tables: server.port
	Value string
}

// applyOverrides applies the command-line layer in the order given.
func applyOverrides(cfg *Config, origins map[string]origin, overrides []Override, errs *errList) {
	for _, o := range overrides {
		if strings.TrimSpace(o.Value) == "" {
			continue
		}
		value, err := parseDocument([]byte(o.Value))
		if err != nil || value == nil || value.Kind != yaml.ScalarNode {
			errs.add(&Error{Layer: o.Flag, Key: o.Key, Reason: "is not a single value"})
			continue
		}
		if isNull(value) {
			continue
		}
		levels := strings.Split(o.Key, ".")
		node := value
		for i := len(levels) - 1; i >= 0; i-- {
			node = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: levels[i]}, node,
			}}
		}
		a := &applier{layer: o.Flag, origins: origins, errs: errs}
		a.apply(reflect.ValueOf(cfg).Elem(), node, nil, "")
	}
}
