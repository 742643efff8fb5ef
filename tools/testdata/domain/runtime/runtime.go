// Package runtime is the runtime.
package runtime

// Name names the runtime.
const Name = "runtime"
