"""Shared ground of the verification side: the one tolerance table and atomic file writes."""
