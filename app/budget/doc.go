// Package budget holds the spend governance of docs/contract.md §15: the
// scan ceiling one question's estimate must stay under, the budget of
// each caller over a window (bytes scanned and questions answered), and
// the ledger port the budget is kept in, with the in-memory ledger of a
// single process. A ledger shared by replicas (PostgreSQL) is an adapter
// the composition root builds; it satisfies Ledger with the same method
// set.
package budget
