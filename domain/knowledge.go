package domain

// Meaning is what a glossary term stands for: a metric, optionally one of
// its dimensions, optionally one allowlisted value of it.
type Meaning struct {
	Metric    string `json:"metric"`
	Dimension string `json:"dimension,omitempty"`
	Value     string `json:"value,omitempty"`
}

// Glossary maps a business term (and its synonyms) to a meaning.
type Glossary struct {
	Term     string   `json:"term"`
	Synonyms []string `json:"synonyms,omitempty"`
	Means    Meaning  `json:"means"`
	Note     string   `json:"note,omitempty"`
}

// Caveat is a note an agent must know about the things it is about.
// Referents are metric names, model names, metric.dimension pairs, or
// metric.dimension=value for one allowlisted value of a dimension.
type Caveat struct {
	Name  string   `json:"name"`
	About []string `json:"about"`
	Note  string   `json:"note"`
}

// NotDefined declares a phrase (and synonyms) the catalogue deliberately
// does not define, so an agent says so instead of guessing.
type NotDefined struct {
	Phrase   string   `json:"phrase"`
	Synonyms []string `json:"synonyms,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// Example pairs phrasings a person might use with the certified question
// that answers them.
type Example struct {
	Name     string   `json:"name"`
	Asked    []string `json:"asked"`
	Question Question `json:"question"`
	Note     string   `json:"note,omitempty"`
}

// Knowledge is read only by the prompt renderer, never by the compiler.
type Knowledge struct {
	Glossary   []Glossary   `json:"glossary"`
	Caveats    []Caveat     `json:"caveats"`
	NotDefined []NotDefined `json:"not_defined"`
	Examples   []Example    `json:"examples"`
}

// MaxKnowledgeBytes bounds all knowledge text together.
const MaxKnowledgeBytes = 32 << 10

// TextBytes returns the size of all knowledge text together (terms,
// phrases, synonyms, notes and example phrasings).
func (k *Knowledge) TextBytes() int {
	n := 0
	add := func(ss ...string) {
		for _, s := range ss {
			n += len(s)
		}
	}
	for _, g := range k.Glossary {
		add(g.Term, g.Note)
		add(g.Synonyms...)
	}
	for _, c := range k.Caveats {
		add(c.Name, c.Note)
	}
	for _, d := range k.NotDefined {
		add(d.Phrase, d.Note)
		add(d.Synonyms...)
	}
	for _, e := range k.Examples {
		add(e.Name, e.Note)
		add(e.Asked...)
	}
	return n
}
