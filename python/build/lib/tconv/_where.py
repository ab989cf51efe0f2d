# Written at install time by setup.py: the build tree's library.
LIBRARY = '/work/main/build/lib/libtconv.so.1'
