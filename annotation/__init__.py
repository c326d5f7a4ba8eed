"""Topic-label annotation: import, agreement, adjudication, curation and splits."""
