package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// Run plays in the local terminal until the player quits, as `ssh2048
// play` does (which builds the same program itself, to send it
// TakenOverMsg when a session elsewhere takes its game over). Cancelling
// opts.Context ends the program. Extra program options (input, output,
// colour profile) are passed through.
func Run(opts Options, progOpts ...tea.ProgramOption) error {
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	p := tea.NewProgram(New(opts), append([]tea.ProgramOption{tea.WithContext(opts.Context)}, progOpts...)...)
	if _, err := p.Run(); err != nil {
		return fmt.Errorf("run tui: %w", err)
	}
	return nil
}
