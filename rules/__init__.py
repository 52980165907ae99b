"""rtlint's rules, one module each (installed as the package `rtlint.rules`).

A module whose name starts with an underscore holds helpers shared by rules; every other
module is searched for Rule classes, so a new rule is one new module.
"""
