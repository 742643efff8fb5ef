// Package config loads sutura's layered configuration (docs/contract.md §9).
//
// The layers are applied in order, each overriding the one before:
//
//  1. the built-in defaults;
//  2. $SUTURA_CONFIG_DIR/base.yaml;
//  3. $SUTURA_CONFIG_DIR/<environment>.yaml, where the environment is
//     SUTURA_ENVIRONMENT (development, test or production; development
//     when unset or empty);
//  4. SUTURA__A__B environment variables: the name below the prefix is
//     split at double underscores into lowercased levels, and the value
//     is read as a YAML scalar or flow collection.
//
// Both files are optional; a SUTURA_CONFIG_DIR that does not name an
// existing directory is an error. Mappings merge key by key across
// layers, lists are replaced whole, and a null value changes nothing.
//
// Unknown keys are refused at every layer and every depth. Every refusal
// is an [*Error] naming the dotted key and the layer it came from (the
// file with line and column, the variable name, or "defaults") and never
// the offending value; several refusals are joined with [errors.Join] and
// can be listed with [Errors].
//
// A source's keys are checked here for their shape only (their type, that
// they apply to the source's kind, that a number set is at least 1); what
// the kind requires of them is checked once, by the source's adapter, when
// the source is opened, and [Config.Refusal] reports such a refusal with
// the key and the layer, like this package's own.
//
// Secrets (the access token, the metrics token, source passwords) are
// read from files at load time into [Secret] values, which print as
// [redacted] under every formatting verb and every encoder.
//
// docs/configuration.md is the reference; a test keeps its key tables
// equal to the keys this package accepts.
package config
