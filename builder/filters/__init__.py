"""builder/filters package."""
