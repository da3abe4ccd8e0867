"""Numeric drills: fresh numbers each draw, answers computed by the labs, typed answers graded."""
