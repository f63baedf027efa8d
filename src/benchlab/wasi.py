"""`python -m benchlab.wasi`: the name platform templates (and runs stored with them)
use; the module is benchlab.measuring.wasi."""
from benchlab.measuring.wasi import main, version  # noqa: F401 (version: the wasm platform asks it)

if __name__ == "__main__":
    raise SystemExit(main())
