#!/bin/sh
# renderer/ must stay free of wayland and wlroots: it speaks in plain types and is tested on surfaceless EGL alone.
root="$1"
hits=$(grep -rnE '#include[[:space:]]*[<"](wlr/|wayland-|xdg-shell|linux-dmabuf)' "$root/renderer" || true)
if [ -n "$hits" ]; then
  echo "renderer/ includes wayland or wlroots headers:"
  echo "$hits"
  exit 1
fi
symbols=$(grep -rnE '\bwlr?_[a-z_]+\(' "$root/renderer" || true)
if [ -n "$symbols" ]; then
  echo "renderer/ calls wayland or wlroots functions:"
  echo "$symbols"
  exit 1
fi
echo "renderer/ includes no wayland or wlroots header and calls none of their functions"
