#!/bin/sh
# Rooms never get the Server: server.cpp builds them from the Core and the narrow things each uses (issue 18), so
# only server.*, main.cpp and embedded.* name it. And bridge/ sits below output/ (issue 30): it imports and samples
# client buffers, while their release is decided in output/sync/, so no file in bridge/ includes one of output/.
root="$1"
allowed='^compositor/(server\.(cpp|hpp)|main\.cpp|embedded\.(cpp|hpp)):'
cd "$root" || exit 1
hits=$(grep -rnE '\bServer ?&|#include[[:space:]]*"compositor/server\.hpp"' compositor --include='*.cpp' \
         --include='*.hpp' | grep -vE "$allowed" || true)
if [ -n "$hits" ]; then
  echo "rooms that take the Server or include server.hpp (give them the Core and narrow callbacks instead):"
  echo "$hits"
  exit 1
fi
echo "no room takes the Server or includes server.hpp"
up=$(grep -rnE '#include[[:space:]]*"compositor/output/' compositor/bridge || true)
if [ -n "$up" ]; then
  echo "bridge/ includes output/ (the bridge imports and samples; what output/ needs from it goes down, not up):"
  echo "$up"
  exit 1
fi
echo "bridge/ includes nothing of output/"
