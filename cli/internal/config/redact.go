package config

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Redacted renders the effective configuration as YAML in the shape of a
// configuration file, for `sutura doctor`: every key with its effective
// value, paths resolved, under a comment naming the environment, the
// configuration directory and whether the demo catalogue is in use.
// Secrets appear only as the paths of their files; their content never
// does.
func (c *Config) Redacted() ([]byte, error) {
	var b bytes.Buffer
	dir := c.Dir
	if dir == "" {
		dir = "(none: SUTURA_CONFIG_DIR is unset)"
	}
	fmt.Fprintf(&b, "# environment: %s\n# configuration directory: %s\n", c.Environment, dir)
	if c.Demo() {
		b.WriteString("# catalogue: the embedded demo\n")
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
