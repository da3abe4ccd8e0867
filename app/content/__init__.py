"""Topics and cards: load markdown files, validate them, render them once, search them."""
