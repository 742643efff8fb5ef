package runtime

// Default builds a bound inside runtime: planted.
func Default() *Admission { return NewAdmission(8) }
