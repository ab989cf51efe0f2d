#!/usr/bin/env bash
# run.sh BUILD_DIR SOURCE_DIR TEST...: installs the Python package (python/) into a fresh venv
# the way README.md says (offline, Debian's setuptools, --system-site-packages so that Debian's
# python3-torch is seen), bound to BUILD_DIR's libtconv, and runs the named unittest modules.
# Skips (77) under the sanitizer build, whose libtconv cannot be loaded into a Python process
# that was not started with the sanitizer runtime.
set -euo pipefail
build=$1 src=$2
shift 2
if [ "${TCONV_SANITIZED:-OFF}" = ON ]; then
    echo "SKIP: the ASan build's libtconv needs the sanitizer runtime preloaded into python"
    exit 77
fi
py=/usr/bin/python3 # Debian's: the one that sees python3-torch and has venv and setuptools
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A copy, so that the in-tree build of pip leaves nothing in the source tree.
cp -r "$src/python" "$tmp/pkg"
"$py" -m venv --system-site-packages "$tmp/venv"
TCONV_BUILD_DIR=$build "$tmp/venv/bin/pip" install -q --no-build-isolation --no-deps --no-index \
    "$tmp/pkg" >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; exit 1; }
cd "$tmp"
export TCONV_TEST_SRC=$src TCONV_TEST_BUILD=$build TCONV_TEST_TMP=$tmp
export PYTHONPATH=$src/tests/python
if [ "$1" = test_torch ] && ! "$tmp/venv/bin/python" -c "import torch" 2>/dev/null; then
    echo "SKIP: python3-torch does not import (.ci/install-deps installs it)"
    exit 77
fi
exec "$tmp/venv/bin/python" -m unittest -v "$@" 2>&1
