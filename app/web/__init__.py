"""HTTP: one router module per feature, pages and JSON side by side. Thin by design."""
