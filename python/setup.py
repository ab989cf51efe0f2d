"""Records, at install time, the libtconv of the build tree beside this folder (or the one named
by $TCONV_BUILD_DIR), so that `import tconv` finds it without an install of the C library.
Pure Python: nothing is compiled."""

import os

from setuptools import setup
from setuptools.command.build_py import build_py


def build_tree_library():
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (os.environ.get("TCONV_BUILD_DIR"), os.path.join(here, "..", "build")):
        if d:
            p = os.path.join(os.path.abspath(d), "lib", "libtconv.so.1")
            if os.path.exists(p):
                return p
    return None


class BuildPy(build_py):
    def run(self):
        super().run()
        if not self.dry_run:
            target = os.path.join(self.build_lib, "tconv", "_where.py")
            with open(target, "w", encoding="utf-8") as f:
                f.write("# Written at install time by setup.py: the build tree's library.\n")
                f.write(f"LIBRARY = {build_tree_library()!r}\n")


setup(cmdclass={"build_py": BuildPy})
