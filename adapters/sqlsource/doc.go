// Package sqlsource holds what every SQL data system adapter shares, so
// that postgres, duckdb and clickhouse (and the adapters still to come)
// keep only their dialect, their driver calls and their privilege checks:
//
//   - the configuration every networked SQL source shares (Server: host,
//     port, database, user, password, transport_mode and its TLS files,
//     posture, the pool's bounds), its one check and the TLS
//     configuration built from it (Network), and the refusal of one
//     setting (ConfigError);
//   - the posture of a source and the identity each call runs as
//     (Identities, CheckPosture);
//   - start-up validation of a model's declared columns (CheckModel);
//   - the checks and rendering of a plan's leg in the adapter's dialect
//     and the default budget of a call (Leg, Render, Budget);
//   - the guard every run_sql statement passes first (Statement);
//   - the capped and byte-bounded row reader (Read) and the canonical
//     cells of the values drivers return (Scalar, DecimalCell, BigIntCell,
//     TimestampText);
//   - the error of a data system (Error), which wraps exactly one error
//     kind of package domain, and the head of every adapter's
//     classification (Settled).
//
// It knows no driver: an adapter hands it plain values and small
// interfaces, so a new adapter takes it as it is. Its test harness for
// the adapters' own tests is package sqltest.
package sqlsource
