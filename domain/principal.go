package domain

// Principal is who is asking. When an agent asks on behalf of a person the
// principal is a chain: Subject is the party the answer is for and Actors
// lists the parties acting for it, nearest first (RFC 8693 "act" claims).
type Principal struct {
	Subject   string   `json:"subject"`
	Groups    []string `json:"groups,omitempty"`
	Scopes    []string `json:"scopes,omitempty"`
	Actors    []string `json:"actors,omitempty"`
	Audiences []string `json:"-"` // metric audiences the groups map to
	// AllAudiences is set for the operator of a single-user deployment, who
	// runs the process and may see every metric.
	AllAudiences bool `json:"-"`
}

// Chain returns the subject followed by its actors, as written in audit
// records.
func (p Principal) Chain() []string {
	return append([]string{p.Subject}, p.Actors...)
}

// LocalOperator is the principal of a single-user deployment and of the
// command line: the person running the process.
var LocalOperator = Principal{Subject: "local-operator", AllAudiences: true}

// CanSee reports whether the principal may see something with audience a.
// An open audience is visible to everyone; a restricted one to principals
// that hold one of its ids, and to a principal with AllAudiences.
func (p Principal) CanSee(a Audience) bool {
	if a.Open() || p.AllAudiences {
		return true
	}
	for _, id := range a.Restricted {
		for _, have := range p.Audiences {
			if id == have {
				return true
			}
		}
	}
	return false
}
