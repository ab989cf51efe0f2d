# Turns flamegraph.js into a C array for the SVG writer (run by the build, not configure, so that
# an edit of the script rebuilds the plugin). The script goes into a CDATA section: a "]]>" in it
# would end the section, so it is refused here.
# usage: cmake -DIN=flamegraph.js -DOUT=flamegraph_script.c -P embed.cmake
file(READ ${IN} text)
string(FIND "${text}" "]]>" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "${IN} contains ']]>', which would end the CDATA section it is embedded in")
endif()
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" hex "${hex}")
file(WRITE ${OUT} "/* Generated from flamegraph.js by embed.cmake. */\n"
                  "const char flamegraph_script[] = {\n${hex}0x00};\n")
