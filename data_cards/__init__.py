"""Data cards, the license registry and its combination rules."""
