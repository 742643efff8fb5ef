// Package mystery plants an adapter module without a rule, outside go.work.
package mystery
