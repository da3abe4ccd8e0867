"""Spaced repetition with FSRS: scheduling, the daily queue, grading, undo and statistics."""
