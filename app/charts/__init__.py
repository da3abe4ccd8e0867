"""Small server-rendered SVG charts: pure functions from numbers to an SVG string."""
