package chdbtest

import "sutura.dev/adapters/sqlsource/sqltest"

// Tier is the chdb tier: the path of libchdb.so in SUTURA_CHDB_LIB
// (Tier.Value skips a test without it).
var Tier = sqltest.Tier{Name: "chdb", Env: "SUTURA_CHDB_LIB"}
