# Turns html.js and html.css into C strings for the page (run by the build, so that an edit
# rebuilds the plugin). They go inside <script> and <style> elements, which "</" followed by
# the element's name would end, and inside a page whose policy forbids any fetch: both are
# refused here rather than found broken in a browser.
# The page's Content-Security-Policy lets only these scripts run, by their SHA-256: the page's
# (html.js after the line break that opens its element) and the flame graph's (FLAME_JS, after
# the line break that opens its CDATA section; the graph's frame inherits the policy).
# usage: cmake -DJS=html.js -DCSS=html.css -DFLAME_JS=flamegraph.js -DOUT=html_assets.c
#        -P embed.cmake

# The base64 of a SHA-256 given in hex (64 digits), as a policy writes it.
function(html_hex_base64 hex out)
  set(digits "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
  set(result "")
  foreach(at RANGE 0 59 6)
    string(SUBSTRING "${hex}" ${at} 6 group)
    math(EXPR v "0x${group}")
    foreach(shift 18 12 6 0)
      math(EXPR i "(${v} >> ${shift}) & 63")
      string(SUBSTRING "${digits}" ${i} 1 c)
      string(APPEND result "${c}")
    endforeach()
  endforeach()
  string(SUBSTRING "${hex}" 60 4 group)
  math(EXPR v "0x${group} << 8")
  foreach(shift 18 12 6)
    math(EXPR i "(${v} >> ${shift}) & 63")
    string(SUBSTRING "${digits}" ${i} 1 c)
    string(APPEND result "${c}")
  endforeach()
  set(${out} "${result}=" PARENT_SCOPE)
endfunction()

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
foreach(pair "JS;html_script_hash" "FLAME_JS;html_flame_script_hash")
  list(GET pair 0 var)
  list(GET pair 1 name)
  file(READ ${${var}} text)
  string(SHA256 hex "\n${text}")
  html_hex_base64(${hex} b64)
  string(APPEND out "const char ${name}[] = \"'sha256-${b64}'\";\n")
endforeach()
file(WRITE ${OUT} "${out}")
