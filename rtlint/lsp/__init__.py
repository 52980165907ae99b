"""`rtlint server`: a Language Server (stdio) over the same engine as `rtlint check`.

document.py  open documents and LSP positions (lines, UTF-16 columns), no pygls
analysis.py  one document's lint, fixes and noqa edits, with its nearest configuration
server.py    the pygls wiring: notifications, diagnostics, code actions
"""
