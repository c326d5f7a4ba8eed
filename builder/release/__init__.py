"""``builder release``: one recipe from sources to a gated, licensed, documented release (issue 14)."""
