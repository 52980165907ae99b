"""rtlint's benchmark against its peers: `python -m bench` from the repository root (see README.md)."""
