#!/usr/bin/env bash
# Installs what benchlab needs on a Debian 12 machine, idempotently:
#   - Debian packages: compilers, the wasm32-wasi toolchain, the peers and
#     launchers the tests and benchmarks use (Google Benchmark, qemu-user, valgrind,
#     hyperfine, jemalloc), and PostgreSQL, whose server the store's tests start
#     (scripts/pg-test-server);
#   - a Python virtual environment in .venv with benchlab installed (editable) with
#     its extras (wasm, postgres) and its test dependencies.
# Run as root (CI) or with sudo available. Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config
  clang lld wasi-libc libclang-rt-14-dev-wasm32   # C to wasm32-wasi
  python3 python3-venv python3-pip
  libbenchmark-dev                                # Google Benchmark, compared in bench/
  libbenchmark-tools                              # its tools/compare.py, which reads `benchlab export --format gbench`
  qemu-user valgrind hyperfine libjemalloc-dev linux-perf
  musl-tools                                      # the header's musl build (tests/c/modes_test.sh)
  git time                                        # GNU time: the reference max RSS in tests/python/measuring/test_workloads.py
  postgresql                                      # the store's tests on PostgreSQL: a throw-away server (scripts/pg-test-server)
  chromium fonts-dejavu-core                      # benchlab report's tests open the page in headless Chromium (Playwright drives it)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}" >&2
  if [[ $(id -u) -eq 0 ]]; then sudo=(); elif command -v sudo >/dev/null; then sudo=(sudo); else
    echo "error: missing Debian packages ${missing[*]} (run this script as root or install sudo)" >&2
    exit 1
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ ! -x .venv/bin/python ]]; then
  echo "setup: creating .venv" >&2
  python3 -m venv .venv
fi
# Reinstall only when the package's dependencies changed: pip's resolver is slow to say "nothing to do".
stamp=.venv/.benchlab-installed
if [[ ! -f $stamp ]] || ! cmp -s pyproject.toml "$stamp"; then
  echo "setup: installing benchlab and its dependencies into .venv" >&2
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[all,test]'   # the tests run wasm and PostgreSQL: both extras
  cp pyproject.toml "$stamp"
fi
