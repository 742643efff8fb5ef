package sqlsource

import (
	"strings"

	"sutura.dev/domain"
)

// Identities is the posture part of a source's configuration and the
// decision it makes: which identity of the data system (a database role,
// a ClickHouse user) each call runs as. The empty identity is the service
// user the connection signs in as.
type Identities struct {
	// System and Source name the source in a ConfigError.
	System, Source string
	// Noun is what the data system calls an identity ("database role",
	// "ClickHouse user"), in refusals.
	Noun string
	// Posture is shared-service-user or impersonation-at-source; empty
	// means shared-service-user.
	Posture domain.Posture
	// Impersonate maps a caller's subject to the identity its legs run as
	// (impersonation-at-source only).
	Impersonate map[string]string
	// VerificationIdentity is the identity of a call without a caller
	// under impersonation-at-source (anchors, run_sql); empty means such
	// calls are refused as credential_unavailable.
	VerificationIdentity string
}

// Check validates the posture settings with valid, the data system's test
// of an identity's name, fills Posture's default and copies Impersonate.
func (id *Identities) Check(valid func(string) bool) error {
	refuse := func(key, reason string) error {
		return &ConfigError{System: id.System, Source: id.Source, Key: key, Reason: reason}
	}
	switch id.Posture {
	case "":
		id.Posture = domain.SharedServiceUser
	case domain.SharedServiceUser, domain.ImpersonationAtSource:
	default:
		return refuse("posture", "must be shared-service-user or impersonation-at-source")
	}
	if id.Posture == domain.SharedServiceUser {
		const only = "applies only with posture impersonation-at-source"
		if len(id.Impersonate) > 0 {
			return refuse("impersonate", only)
		}
		if id.VerificationIdentity != "" {
			return refuse("verification_identity", only)
		}
	}
	m := make(map[string]string, len(id.Impersonate))
	for subject, name := range id.Impersonate {
		switch {
		case strings.TrimSpace(subject) == "":
			return refuse("impersonate", "has an empty subject")
		case !valid(name):
			return refuse("impersonate", "maps a subject to an empty or invalid "+id.Noun)
		}
		m[subject] = name
	}
	id.Impersonate = m
	if id.VerificationIdentity != "" && !valid(id.VerificationIdentity) {
		return refuse("verification_identity", "is not a valid "+id.Noun+" name")
	}
	return nil
}

// CheckPosture checks the posture settings of s, the Server of source
// (see Identities.Check, with noun and valid), and writes their normal
// form back into s.
func CheckPosture(s *Server, system, source, noun string, valid func(string) bool) error {
	id := ServerIdentities(s, system, source, noun)
	if err := id.Check(valid); err != nil {
		return err
	}
	s.Posture, s.Impersonate = id.Posture, id.Impersonate
	return nil
}

// Own is the identity of a call without a caller ("" is the service
// user): the verification identity under impersonation-at-source,
// refused as credential_unavailable when none is configured.
func (id *Identities) Own() (string, error) {
	if id.Posture != domain.ImpersonationAtSource {
		return "", nil
	}
	if id.VerificationIdentity == "" {
		return "", Refusal(domain.CredentialUnavailable,
			"source %s runs as the caller and declares no verification identity for calls without one", id.Source)
	}
	return id.VerificationIdentity, nil
}

// Of is the identity principal's legs run as ("" is the service user):
// under impersonation-at-source the one Impersonate maps its subject to;
// a subject with none is refused as credential_unavailable, with no
// fallback to the service user.
func (id *Identities) Of(p domain.Principal) (string, error) {
	if id.Posture != domain.ImpersonationAtSource {
		return "", nil
	}
	name, ok := id.Impersonate[p.Subject]
	if !ok || p.Subject == "" {
		return "", Refusal(domain.CredentialUnavailable, "there is no %s for this caller at source %s", id.Noun, id.Source)
	}
	return name, nil
}
