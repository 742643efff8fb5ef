// Package mystery is planted: it is in no layer of EngineLayers.
package mystery

// Answer answers.
const Answer = 42
