#!/usr/bin/env bash
# test_deb.sh SOURCE_DIR: the Debian package as a user gets it. Builds the project configured
# for /usr (as a distribution would), makes the .deb with cpack, unpacks it into a scratch root
# (dpkg -x, no root rights needed) and checks from there: its control data (dependencies
# computed from what the binaries link), its files, the program converting the bundled example
# with the packaged plugins, the manual page, the completion, and an outside plugin built with
# nothing but the packaged headers and pkg-config file. The full `apt install ./tconv_*.deb`
# path is the manual check in README.md ("Debian package").
set -euo pipefail
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
for tool in cpack dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (.ci/install-deps)"; exit 77; }
done

cmake -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
    -DTCONV_TESTS=OFF >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "configure"; }
cmake --build "$tmp/build" -j "$(nproc)" >"$tmp/build.log" 2>&1 || { tail -50 "$tmp/build.log"; fail "build"; }
(cd "$tmp/build" && cpack -G DEB) >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; fail "cpack"; }
grep -qi warning "$tmp/cpack.log" && { cat "$tmp/cpack.log"; fail "cpack warned"; }
deb=$(ls "$tmp"/build/tconv_*_*.deb)
[ "$(echo "$deb" | wc -l)" = 1 ] || fail "expected one package, got: $deb"

dpkg-deb -f "$deb" Package Version Architecture Depends >"$tmp/control"
grep -qx "Package: tconv" "$tmp/control" || fail "package name"
version=$(sed -n 's/^project(tconv VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
grep -qx "Version: $version" "$tmp/control" || fail "version is not $version"
# Every library a packaged binary links, other than its own libtconv, is a dependency.
for lib in libc6 libjansson4 zlib1g libprotobuf-c1 libltdl7 libopen-trace-format2; do
    grep -q "^Depends:.*\b$lib" "$tmp/control" || { cat "$tmp/control"; fail "no dependency on $lib"; }
done

root=$tmp/root
dpkg-deb -x "$deb" "$root"
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$tmp/files"
for f in ./usr/bin/tconv ./usr/bin/tconv-plugin-check ./usr/include/tconv/plugin.h \
    ./usr/include/tconv/version.h ./usr/share/man/man1/tconv.1 \
    ./usr/share/bash-completion/completions/tconv ./usr/share/zsh/vendor-completions/_tconv \
    ./usr/lib/tconv/plugins/tconv-pprof.so; do
    grep -qx -- "$f" "$tmp/files" || fail "$f is not in the package"
done
grep -qE '^\./usr/lib/[^/]*/?libtconv\.so\.1$' "$tmp/files" || fail "libtconv.so.1 is not in the package"
grep -q 'pkgconfig/tconv.pc$' "$tmp/files" || fail "tconv.pc is not in the package"
# Nothing of the build or the tests.
! grep -qE 'tevt|failalloc|cmocka|/tests?/' "$tmp/files" || fail "test files in the package"

# The program from the scratch root finds its library (RPATH) and the packaged plugins beside it.
t=$root/usr/bin/tconv
env -u TCONV_PLUGIN_PATH "$t" --list >"$tmp/list" || fail "tconv --list"
for p in chrome pprof otf2 folded flamegraph html; do
    grep -q "/usr/lib/tconv/plugins/tconv-$p.so" "$tmp/list" || { cat "$tmp/list"; fail "plugin $p not loaded from the package"; }
done
env -u TCONV_PLUGIN_PATH "$t" -q -o "$tmp/ex.pb.gz" "$src/examples/traces/kineto-minitoy.json.gz" ||
    fail "conversion with the packaged program"
go tool pprof -top "$tmp/ex.pb.gz" 2>/dev/null | grep -q 'aten::' || fail "pprof does not read the packaged program's output"
MANWIDTH=80 man -l "$root/usr/share/man/man1/tconv.1" 2>/dev/null | grep -q '^NAME' || fail "man page"

# An outside plugin against the packaged headers and pkg-config file alone.
pc=$(dirname "$(find "$root" -name tconv.pc)")
mkdir "$tmp/ex"
make -s -C "$src/examples/jsonl" PKG_CONFIG_PATH="$pc" O="$tmp/ex" >"$tmp/make.log" 2>&1 ||
    { cat "$tmp/make.log"; fail "examples/jsonl did not build against the package"; }
TCONV_PLUGIN_PATH=$tmp/ex "$t" --list | grep -q "writer  jsonl" || fail "the outside plugin does not load"
echo "package: ok ($(basename "$deb"), $(wc -l <"$tmp/files") entries)"
