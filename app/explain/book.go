package explain

import (
	"slices"
	"sync"

	"sutura.dev/domain"
)

// Book collects the account of each leg of one question, written by the
// legs' goroutines, each at its own index.
type Book struct {
	mu         sync.Mutex
	accounts   []domain.LegAccount
	statements []domain.Statement
	// withStatements says the caller may read the statements.
	withStatements bool
}

// NewBook returns the book of a question of n legs; withStatements says
// its caller may read the statements (domain.ScopeSQLRead).
func NewBook(n int, withStatements bool) *Book {
	return &Book{accounts: make([]domain.LegAccount, n), withStatements: withStatements}
}

// WithStatements reports whether the caller may read the statements.
func (b *Book) WithStatements() bool { return b.withStatements }

// Record records leg i's account and, when not nil, its statement.
func (b *Book) Record(i int, acc domain.LegAccount, st *domain.Statement) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.accounts[i] = acc
	if st != nil {
		b.statements = append(b.statements, *st)
	}
}

// Legs returns a copy of the legs' accounts, and the statements: nil when
// the caller may not read them, else a non-nil copy.
func (b *Book) Legs() ([]domain.LegAccount, []domain.Statement) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var stmts []domain.Statement
	if b.withStatements {
		stmts = append([]domain.Statement{}, b.statements...)
	}
	return slices.Clone(b.accounts), stmts
}
