package config

// unsafe refuses the combinations of docs/contract.md §9 that must stop the
// start, each naming the key to change and pointing at the key that
// triggered the rule.
func (c *checker) unsafe() {
	cfg := c.cfg
	srv, sec := cfg.Server, cfg.Security
	loopback := srv.Loopback()
	production := cfg.Environment == Production

	if !loopback && !srv.TLSTerminatedUpstream {
		c.fail("server.host", "is not a loopback address and no TLS termination is declared: "+
			"bind a loopback address, or set server.tls_terminated_upstream to true when a proxy in front of sutura terminates TLS")
	}
	if production && srv.Port == 0 {
		c.fail("server.port", "must not be 0 (a free port) in production (SUTURA_ENVIRONMENT)")
	}

	if !sec.AccessToken.Set() {
		switch {
		case production:
			c.fail("security.access_token_file", "is required in production (SUTURA_ENVIRONMENT)")
		case !loopback:
			c.fail("security.access_token_file", "is required when server.host is not a loopback address ("+c.from("server.host")+")")
		}
	}
	if sec.AccessToken.Equal(sec.MetricsToken) {
		c.fail("security.metrics_token_file", "names a token equal to the access token ("+c.from("security.access_token_file")+"): use a distinct token")
	}

	if cfg.Tools.RunSQL.Enabled && sec.Identity == MultiUser {
		c.fail("tools.run_sql.enabled", "must be false in multi-user mode ("+c.from("security.identity")+")")
	}
	if srv.AgentSurface.Enabled && !sec.Inbound.Enabled() && (sec.Identity != SingleUser || !loopback) {
		trigger := c.from("server.host")
		if loopback {
			trigger = c.from("security.identity")
		}
		c.fail("server.agent_surface.enabled", "serves /mcp without inbound identity, which is allowed only single-user on a loopback address ("+trigger+"): "+
			"configure security.inbound, or set this to false")
	}

	if sec.Identity == SingleUser && len(cfg.Sources) > 0 && (production || !loopback) && blank(sec.SingleUserBecause) {
		trigger := "in production (SUTURA_ENVIRONMENT)"
		if !production {
			trigger = "off loopback (" + c.from("server.host") + ")"
		}
		c.fail("security.single_user_because", "is required when single-user mode serves configured sources "+trigger+
			": say why one identity is acceptable, or use multi-user")
	}

	// A deployment of several sources can federate (docs/contract.md §11): one
	// answer then combines rows its caller may see at one source with
	// rows the service user sees at another.
	federates := len(cfg.Sources) > 1 && cfg.Governance.SourceCeiling > 1
	for _, alias := range sortedKeys(cfg.Sources) {
		s, key := cfg.Sources[alias], childKey("sources", alias)
		if sec.Identity == MultiUser && s.Posture == SharedServiceUser && blank(s.AcknowledgedBecause) {
			why := ""
			if federates {
				why = " (and, as this deployment's sources can be combined in one answer, every caller may see it beside what other sources show them)"
			}
			c.fail(key+".acknowledged_because", "is required for a shared-service-user source in multi-user mode: "+
				"say why every caller may see what the service user sees"+why+", or use impersonation-at-source")
		}
		if s.Posture == ImpersonationAtSource && hasIdentity(s.Kind) && len(s.Impersonate) == 0 && !sec.Inbound.Enabled() {
			k := key + ".impersonate"
			if !keyApplies("impersonate", s.Kind) {
				k = key + ".posture"
			}
			c.fail(k, "leaves impersonation-at-source without a way to carry the subject: "+
				"map subjects to roles in "+key+".impersonate or configure security.inbound")
		}
	}
}
