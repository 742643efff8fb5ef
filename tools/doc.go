// Package tools holds sutura's architecture rules and the checkers that
// enforce them, in the spirit of the standard library's go/build/deps_test.go.
//
// The rules are data (rules.go): a table of rules with the reason for each,
// the allowed imports of every module, and the classes of adapters that
// must not import one another. The checkers take the root directory of a
// workspace (a go.work beside one folder per module), so the same code runs
// against the real workspace and against the small fixture workspaces under
// testdata that plant one violation per rule. The tests of this package are
// the architecture checks: a rule is never relaxed to make a build pass.
//
// The import rules read each module with "go list -e -deps -test -json ./..."
// run in the module's folder with GOWORK=off, because that stand-alone build
// is the real boundary; the source rules read files with go/parser.
package tools
