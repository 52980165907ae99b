"""Generic Python analysis shared by every rule (no realtime vocabulary here).

- `paths`: statement paths shared by the `ast` tree and the fixer's LibCST tree.
- `index`: one pass over a module: parents, functions, classes, methods, owned nodes.
- `cfg`: a per-function control-flow model with await points; order queries.
- `values`: value flow: origins of names and expressions, with pluggable sources.
- `locks`: one lock model: `async with` regions, lock-taking methods, re-entrancy.

Every analysis is memoised per file through `FileContext.memo`; see rules/README.md.
"""
