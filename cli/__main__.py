import sys

from freshpass.main import main

sys.exit(main())
