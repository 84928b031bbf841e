#!/bin/sh
# Fails when the shared library $2 registers a static destructor (calls __cxa_atexit) and prints
# the functions that do. Usage: no_static_destructors.sh OBJDUMP LIBRARY
found=$("$1" -d --no-show-raw-insn "$2" |
  awk '/^[0-9a-f]+ <.*>:$/ { fn = $2 } /call.*<__cxa_atexit@plt>/ { print fn }')
if [ -n "$found" ]; then
  echo "static destructors registered in $2 by:"
  echo "$found" | c++filt
  exit 1
fi
echo "no static destructors in $2"
