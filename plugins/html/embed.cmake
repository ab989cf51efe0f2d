# Turns html.js and html.css into C strings for the page (run by the build, so that an edit
# rebuilds the plugin). They go inside <script> and <style> elements, which "</" followed by
# the element's name would end, and inside a page whose policy forbids any fetch: both are
# refused here rather than found broken in a browser.
# usage: cmake -DJS=html.js -DCSS=html.css -DOUT=html_assets.c -P embed.cmake
set(out "/* Generated from html.js and html.css by embed.cmake. */\n")
foreach(pair "JS;html_script;</script" "CSS;html_style;</style")
  list(GET pair 0 var)
  list(GET pair 1 name)
  list(GET pair 2 end)
  file(READ ${${var}} text)
  string(TOLOWER "${text}" lower)
  # the SVG namespace is a name, never fetched
  string(REPLACE "http://www.w3.org/2000/svg" "" lower "${lower}")
  foreach(bad "${end}" "<!--" "http:" "https:" "@import" "url(")
    string(FIND "${lower}" "${bad}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${${var}} contains '${bad}', which has no place in the page")
    endif()
  endforeach()
  file(READ ${${var}} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" hex "${hex}")
  string(APPEND out "const char ${name}[] = {\n${hex}0x00};\n")
endforeach()
file(WRITE ${OUT} "${out}")
