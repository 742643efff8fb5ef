package main

import (
	"fmt"

	"sutura.dev/app"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
)

// everyCaller is the viewer of the instructions a multi-user deployment
// sends: a caller in no audience sees what every caller may see.
var everyCaller = domain.Principal{Subject: "every-caller"}

// promptViewer is whose view of the catalogue `sutura serve` renders its
// MCP instructions for: the local operator, who is every caller of a
// single-user deployment without inbound identity, or else a caller in
// no audience. `sutura prompt` prints the same.
func promptViewer(cfg *config.Config) domain.Principal {
	if cfg.Security.Identity == config.SingleUser && !cfg.Security.Inbound.Enabled() {
		return domain.LocalOperator
	}
	return everyCaller
}

// agentPrompt is the one rendering of the agent prompt: the MCP
// instructions of `sutura mcp` and `sutura serve`, and what `sutura prompt`
// prints, for viewer. When viewer sees fewer metrics than the catalogue
// defines, the prompt says that some were left out (never which): they are
// restricted to audiences, and describe_catalog lists those a caller may
// ask.
func agentPrompt(s *setup, viewer domain.Principal) (string, error) {
	opts := app.PromptOptions{Prose: app.Prose(s.Config.Prompt.CatalogProse)}
	if f := s.Config.Prompt.InstructionsFile; f != "" {
		b, err := readFileLimited(f, 64<<10)
		if err != nil {
			return "", fmt.Errorf("prompt.instructions_file: %w", err)
		}
		opts.Instructions = string(b)
	}
	view := app.DescribeBundle(s.Bundle, viewer)
	opts.LeftOut = len(s.Bundle.Definitions().Metrics) - len(view.Metrics)
	return app.RenderPrompt(view, opts), nil
}

// runPrompt prints the agent prompt: exactly the instructions an agent
// receives from `sutura mcp`, and from `sutura serve` on this
// configuration.
func runPrompt(inv *invocation) error {
	s, err := load(inv)
	if err != nil {
		return err
	}
	text, err := agentPrompt(s, promptViewer(s.Config))
	if err != nil {
		return err
	}
	fmt.Fprint(inv.io.out, text)
	return nil
}
