"""builder/readers package."""
