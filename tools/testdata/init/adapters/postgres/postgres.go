// Package postgres plants init in an adapter module that go.work does not list.
package postgres

// Driver names the driver.
var Driver string

func init() { Driver = "pgx" } // planted
