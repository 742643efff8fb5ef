// Package httpapi serves sutura's capabilities over HTTP: /v1, OpenAPI,
// the authentication gates and /metrics.
//
// It is filled by the HTTP issue; until then it declares nothing.
package httpapi
