"""Users and, later, passwords, sessions and CSRF; knows nothing of HTTP."""
