"""`python -m zhuoji` is the `zhuoji` command."""

import sys

from zhuoji.cli import main

sys.exit(main())
