// Package parity holds, in its tests, the transport parity suite: the same
// calls asked through every transport of one surface — MCP over an
// in-memory connection and over Streamable HTTP, HTTP /v1, and the
// in-process connection — must give the same outcome bytes, the same
// failure code and the same audit records. It lives in cli because only
// the composition root may import every transport; it has no code of its
// own.
package parity
