"""Book plumbing: the notebook runner, summary records, figures and the sweep command."""
