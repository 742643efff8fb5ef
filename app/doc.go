// Package app is sutura's driving port: the Surface that describes the
// catalogue and answers questions, and the driven ports it declares
// (catalogue, data system, audit sink, credential broker).
//
// It is filled by the engine issue; until then it declares nothing.
package app
