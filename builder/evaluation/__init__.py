"""builder/evaluation package."""
