#!/bin/sh
# GL and EGL stay behind the renderer seam: outside renderer/ and compositor/bridge/, no compositor file includes them.
root="$1"
hits=$(grep -rnE '#include[[:space:]]*<(GLES[0-9]*|EGL|GL)/' "$root/compositor" | grep -v "^$root/compositor/bridge/" || true)
if [ -n "$hits" ]; then
  echo "GL or EGL headers included outside renderer/ and compositor/bridge/:"
  echo "$hits"
  exit 1
fi
echo "compositor/ includes GL and EGL headers only in bridge/"
