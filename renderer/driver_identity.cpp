// The driver's name for --stats and the start-up log, from what EGL and GL say about it.
#include "renderer/driver_identity.hpp"

namespace kiln::renderer {
namespace {

// Drivers' strings are not kiln's: control characters become spaces, and runs of spaces one.
std::string printable(const std::string& text)
{
    std::string out;
    for (char c : text) {
        const bool control = static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
        if (control || c == ' ') {
            if (!out.empty() && out.back() != ' ')
                out += ' ';
        } else {
            out += c;
        }
    }
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

}  // namespace

std::string describe_driver(const DriverIdentity& identity)
{
    if (std::string mesa = printable(identity.mesa_driver); !mesa.empty())
        return mesa.substr(0, 255);
    const std::string device_driver = printable(identity.device_driver);
    const std::string vendor = device_driver.empty() ? printable(identity.gl_vendor) : device_driver;
    std::string renderer = printable(identity.device_renderer);
    if (renderer.empty())
        renderer = printable(identity.gl_renderer);
    const std::string version = printable(identity.gl_version);
    std::string out = vendor;
    if (!renderer.empty())
        out += (out.empty() ? "" : ": ") + renderer;
    if (!version.empty())
        out += (out.empty() ? "" : ", ") + version;
    if (out.empty())
        return "unknown";
    if (out.size() > 255) {
        out.resize(255);
        // Never half a UTF-8 sequence at the end.
        while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xc0) == 0x80)
            out.pop_back();
        if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xc0)
            out.pop_back();
    }
    return out;
}

}  // namespace kiln::renderer
