import sys

from rtlint.cli import main

sys.exit(main())
