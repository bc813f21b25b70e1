// KilnControl: a small client of kiln's control socket (`kiln msg`) that asks which output and window have focus.
#pragma once

#include <string>

namespace portal {

struct KilnFocus {
    std::string output;      // the focused output's name; empty where kiln reports none
    std::string identifier;  // the focused window's ext-foreign-toplevel-list identifier; empty where none
};

class KilnControl {
public:
    // The socket kiln-portal asks: $KILN_SOCKET, else $XDG_RUNTIME_DIR/kiln-$WAYLAND_DISPLAY.sock (kiln msg's).
    KilnControl();

    // Asks kiln for the focused output and window, waiting at most timeout_ms in all. False with `error` (one line:
    // why) where the socket is absent or refuses, kiln is slow, or its reply is not what kiln msg answers.
    bool focus(KilnFocus& focus, std::string& error, int timeout_ms = 500) const;

private:
    std::string path_;
    std::string path_error_;  // why there is no path
};

}  // namespace portal
