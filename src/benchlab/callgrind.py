"""`python -m benchlab.callgrind`: the name platform templates (and runs stored with them)
use; the module is benchlab.profiling.callgrind."""
from benchlab.profiling.callgrind import main

if __name__ == "__main__":
    raise SystemExit(main())
