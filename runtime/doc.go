// Package runtime holds what bounds the work of one process: the single
// admission bound, deadlines and the audit writers.
//
// It is filled by the engine issue; until then it declares nothing.
package runtime
