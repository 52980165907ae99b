"""Test-only helpers (not shipped): rules loaded through RTLINT_EXTRA_RULES."""
