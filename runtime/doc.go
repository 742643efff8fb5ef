// Package runtime holds what bounds the work of one process: the single
// admission bound shared by every transport, and deadlines. Audit writers
// join it with the engine.
package runtime
