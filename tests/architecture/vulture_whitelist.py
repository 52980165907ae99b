"""Names vulture cannot see used: each is called by name from outside the code vulture
reads (an entry point, a framework's reflection). Read by vulture only, never imported.
The rule classes and their VALID/INVALID examples, which the registry finds by reflection,
are added by tests/architecture/test_style.py from the registry itself."""

# LibCST calls a transformer's visit_<Node>/leave_<Node> and on_visit by the node's name
_.leave_TypeAlias  # rtlint/core/parsing.py: the down-levelling of newer grammar
_.leave_FunctionDef
_.leave_ClassDef
_.leave_ExceptHandler
_.leave_ExceptStarHandler
_.leave_TryStar
_.leave_FormattedString
_.leave_TemplatedString
_.leave_Arg  # rules/_edits.py
_.leave_Attribute
_.leave_Call
_.on_visit  # rules/_appfix.py
_.leave_With  # bench/peers/fixit_rtl001.py: Fixit's LintRule API
_.visit_IndentedBlock
_.MESSAGE
_.original_node

# the control-flow builder dispatches on the statement's type: getattr(self, "_" + type name)
_._return
_._raise
_._break
_._continue
_._if
_._while
_._match

# flake8 loads the entry point rtlint.flake8:Plugin and calls its add_options and parse_options
_.Plugin
_.add_options
_.parse_options

# rtlint.api is the library's public API (README "Use as a library"); from_table is the
# configuration entry of tests and tools
_.check_source
_.from_table

# read by attribute name elsewhere: a rule example's expected fix (tests/rules), the
# LSP's CodeAction.disabled (pygls serialises it), the per-node body cache (node.__dict__)
_.expected_fix
_.disabled
_._rtlint_body

# pygls calls the language server's @server.feature handlers (rtlint/lsp/server.py)
_.initialize
_.did_open
_.did_change
_.did_save
_.did_close
_.code_action
_.code_action_resolve
