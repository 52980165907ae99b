import sys

# `python -m rtlint` puts the working folder first on sys.path: a json.py or typing.py in
# the folder being linted would then be imported, and run, instead of the standard
# library's. Drop it before anything else is imported (as `python -P` would).
if not sys.flags.safe_path and sys.path and sys.path[0] in ("", ".", __import__("os").getcwd()):
    del sys.path[0]

try:
    from rtlint.cli import main
except KeyboardInterrupt:  # a Ctrl-C while starting: no traceback
    sys.exit(130)

sys.exit(main())
