import sys

from heurtune.cli import main

sys.exit(main())
