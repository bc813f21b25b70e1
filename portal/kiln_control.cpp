// KilnControl: connects to kiln's control socket, sends `outputs` and `windows` and reads both replies, within a
// deadline so that a stuck kiln never holds kiln-portal's loop for long.
#include "kiln_control.hpp"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "json_value.hpp"

namespace portal {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t max_reply = 1 << 20;

// Milliseconds left before `deadline`, at least 0.
int left_ms(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left > 0 ? static_cast<int>(left) : 0;
}

class Socket {
public:
    explicit Socket(int fd) : fd_(fd) {}
    ~Socket() {
        if (fd_ >= 0)
            ::close(fd_);
    }
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    int fd() const { return fd_; }

private:
    int fd_;
};

// The reply's array under `key` ({"ok": true, key: [...]}), or nullptr with `error`.
const JsonValue* reply_array(const std::string& line, const char* key, std::optional<JsonValue>& reply,
                             std::string& error) {
    std::string why;
    reply = parse_json(line, why);
    if (!reply) {
        error = std::string("kiln's reply to '") + key + "' is not JSON (" + why + ")";
        return nullptr;
    }
    if (!reply->true_at("ok")) {
        const std::string* refused = reply->string_of("error");
        error = std::string("kiln refused '") + key + "': " + (refused ? *refused : "no reason given");
        return nullptr;
    }
    const JsonValue* array = reply->member(key);
    if (!array || array->kind != JsonValue::Kind::array) {
        error = std::string("kiln's reply to '") + key + "' has no array '" + key + "'";
        return nullptr;
    }
    return array;
}

}  // namespace

KilnControl::KilnControl() {
    if (const char* socket = std::getenv("KILN_SOCKET"); socket && *socket) {
        path_ = socket;
        return;
    }
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    const char* display = std::getenv("WAYLAND_DISPLAY");
    if (!runtime || !*runtime)
        path_error_ = "XDG_RUNTIME_DIR is not set";
    else
        path_ = std::string(runtime) + "/kiln-" + (display && *display ? display : "wayland-0") + ".sock";
}

bool KilnControl::focus(KilnFocus& focus, std::string& error, int timeout_ms) const {
    if (path_.empty()) {
        error = "no control socket: " + path_error_;
        return false;
    }
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path_.size() >= sizeof(address.sun_path)) {
        error = path_ + " is too long for a Unix socket";
        return false;
    }
    std::memcpy(address.sun_path, path_.c_str(), path_.size() + 1);
    Socket socket(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    // A Unix socket's connect does not wait for the server's accept: it fails at once or succeeds.
    if (socket.fd() < 0 || ::connect(socket.fd(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) < 0) {
        error = "cannot connect to kiln's control socket " + path_ + ": " + std::strerror(errno);
        return false;
    }
    const std::string request = "{\"command\":\"outputs\"}\n{\"command\":\"windows\"}\n";
    if (::send(socket.fd(), request.data(), request.size(), MSG_NOSIGNAL | MSG_DONTWAIT) !=
        static_cast<ssize_t>(request.size())) {
        error = "cannot ask kiln's control socket " + path_ + ": " + std::strerror(errno);
        return false;
    }
    Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    std::string buffer;
    std::string lines[2];
    for (int got = 0; got < 2;) {
        if (size_t newline = buffer.find('\n'); newline != std::string::npos) {
            lines[got++] = buffer.substr(0, newline);
            buffer.erase(0, newline + 1);
            continue;
        }
        pollfd watch{socket.fd(), POLLIN, 0};
        int ready = ::poll(&watch, 1, left_ms(deadline));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            error = ready == 0 ? "kiln's control socket did not answer within " + std::to_string(timeout_ms) + " ms"
                               : std::string("poll: ") + std::strerror(errno);
            return false;
        }
        char chunk[4096];
        ssize_t n = ::recv(socket.fd(), chunk, sizeof(chunk), MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            error = n == 0 ? "kiln's control socket closed before answering" : std::string("recv: ") + std::strerror(errno);
            return false;
        }
        buffer.append(chunk, static_cast<size_t>(n));
        if (buffer.size() > max_reply) {
            error = "kiln's control socket answered more than 1 MiB";
            return false;
        }
    }

    std::optional<JsonValue> outputs_reply, windows_reply;
    const JsonValue* outputs = reply_array(lines[0], "outputs", outputs_reply, error);
    const JsonValue* windows = outputs ? reply_array(lines[1], "windows", windows_reply, error) : nullptr;
    if (!outputs || !windows)
        return false;
    focus = {};
    for (const JsonValue& output : outputs->array)
        if (const std::string* name = output.string_of("name"); name && output.true_at("focused"))
            focus.output = *name;
    bool focused_window = false;
    for (const JsonValue& window : windows->array) {
        if (!window.true_at("focused"))
            continue;
        focused_window = true;
        if (const std::string* identifier = window.string_of("identifier"))
            focus.identifier = *identifier;
    }
    if (focused_window && focus.identifier.empty()) {
        error = "kiln msg names the focused window without an identifier (a kiln older than kiln-portal?)";
        return false;
    }
    return true;
}

}  // namespace portal
