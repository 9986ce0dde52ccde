"""Pure rules of the Storyteller d10 games and the d6 narrative system; see RULES.md."""
