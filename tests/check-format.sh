#!/usr/bin/env bash
# The C sources as .clang-format lays them out: clang-format --dry-run -Werror over every .c and
# .h of the source tree (build folders and generated files are not in it). Fails naming the files
# whose layout differs; `clang-format -i FILE` fixes one. The layout is Debian's clang-format's
# (14 in bookworm); another major version may lay out a few constructs differently.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed" >&2; exit 77; }
mapfile -d '' files < <(find core include plugins tests examples python -type f \
    \( -name '*.c' -o -name '*.h' \) -print0 2>/dev/null | LC_ALL=C sort -z)
if ! clang-format --dry-run -Werror "${files[@]}" 2>"${TMPDIR:-/tmp}/check-format.$$"; then
    grep -o '^[^:]*\.[ch]' "${TMPDIR:-/tmp}/check-format.$$" | LC_ALL=C sort -u | sed 's/^/  /' >&2
    rm -f "${TMPDIR:-/tmp}/check-format.$$"
    echo "check-format: the files above are not formatted (clang-format -i FILE)" >&2
    exit 1
fi
rm -f "${TMPDIR:-/tmp}/check-format.$$"
echo "check-format: ${#files[@]} files formatted"
