"""Timed mock interviews: choosing questions, server-kept deadlines, answers, grading, reports."""
