// Package runtime plants testify in non-test code.
package runtime

import "github.com/stretchr/testify/assert" // planted: testify only in tests

// Name names the runtime.
const Name = "runtime"

// Check is production code using an assertion library.
func Check(t assert.TestingT) bool { return assert.True(t, true) }
