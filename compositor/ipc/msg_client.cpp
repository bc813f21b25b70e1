// `kiln msg`: arguments to a request line, the socket found (--socket, KILN_SOCKET, or WAYLAND_DISPLAY's), the
// reply printed.
#include "compositor/ipc/msg_client.hpp"

#include "compositor/ipc/control_socket.hpp"
#include "compositor/ipc/json_request.hpp"
#include "compositor/ipc/json_writer.hpp"

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

namespace kiln::compositor::ipc {

namespace {

constexpr int reply_timeout_ms = 10000;

const char* const usage_text =
    "usage: kiln msg [--socket PATH] COMMAND [ARGUMENTS]\n"
    "  outputs | workspaces | windows    list them as JSON\n"
    "  focus ID | close ID               focus or close window ID (ids from `kiln msg windows`)\n"
    "  move ID WORKSPACE [OUTPUT]        move window ID to WORKSPACE (on OUTPUT)\n"
    "  workspace NAME [OUTPUT]           show workspace NAME (on OUTPUT)\n"
    "  move-workspace NAME OUTPUT [FROM] move workspace NAME (of FROM) with its windows to OUTPUT\n"
    "  reload                            read kiln.ini again\n"
    "  subscribe                         print workspace and window events, one JSON line each\n"
    "  version                           the running kiln's version\n"
    "  raw JSON                          send one JSON request as it is\n"
    "The socket is --socket, else $KILN_SOCKET, else $XDG_RUNTIME_DIR/kiln-$WAYLAND_DISPLAY.sock.\n";

int usage_error(const std::string& message)
{
    std::fprintf(stderr, "kiln msg: %s\n\n%s", message.c_str(), usage_text);
    return 2;
}

// An id given as a number is sent as one; anything else is sent as the string it is, for kiln to refuse by type.
void id_value(JsonWriter& json, const char* text)
{
    int64_t id = 0;
    const char* end = text + std::strlen(text);
    auto [last, ec] = std::from_chars(text, end, id);
    if (ec == std::errc{} && last == end && end != text)
        json.value(id);
    else
        json.value(std::string_view(text));
}

// The request for `args`, or empty with `error`.
std::string build_request(const std::vector<const char*>& args, std::string& error)
{
    const std::string command = args[0];
    const size_t count = args.size() - 1;
    const auto arity = [&](size_t least, size_t most) {
        if (count >= least && count <= most)
            return true;
        error = "\"" + command + "\" takes " +
                (least == most ? std::to_string(least) : std::to_string(least) + " to " + std::to_string(most)) +
                " argument" + (most == 1 ? "" : "s");
        return false;
    };
    JsonWriter json;
    json.begin_object().key("command").value(command);
    if (command == "raw") {
        if (!arity(1, 1))
            return {};
        return args[1];
    }
    if (command == "outputs" || command == "workspaces" || command == "windows" || command == "reload" ||
        command == "subscribe" || command == "version") {
        if (!arity(0, 0))
            return {};
    } else if (command == "focus" || command == "close") {
        if (!arity(1, 1))
            return {};
        id_value(json.key("id"), args[1]);
    } else if (command == "move") {
        if (!arity(2, 3))
            return {};
        id_value(json.key("id"), args[1]);
        json.key("workspace").value(args[2]);
        if (count == 3)
            json.key("output").value(args[3]);
    } else if (command == "workspace") {
        if (!arity(1, 2))
            return {};
        json.key("name").value(args[1]);
        if (count == 2)
            json.key("output").value(args[2]);
    } else if (command == "move-workspace") {
        if (!arity(2, 3))
            return {};
        json.key("name").value(args[1]).key("output").value(args[2]);
        if (count == 3)
            json.key("from").value(args[3]);
    } else {
        error = "unknown command \"" + command + "\"";
        return {};
    }
    json.end_object();
    return json.text();
}

int connect_to(const std::string& path)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof(address.sun_path)) {
        std::fprintf(stderr, "kiln msg: %s is too long for a Unix socket\n", path.c_str());
        return -1;
    }
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) < 0) {
        std::fprintf(stderr, "kiln msg: cannot connect to kiln at %s: %s\n", path.c_str(), std::strerror(errno));
        if (fd >= 0)
            ::close(fd);
        return -1;
    }
    return fd;
}

// One line from kiln, without its newline; false at the end of the stream, an error or (`timeout_ms` >= 0) time.
bool read_line(int fd, std::string& buffer, std::string& line, int timeout_ms)
{
    for (;;) {
        if (size_t newline = buffer.find('\n'); newline != std::string::npos) {
            line = buffer.substr(0, newline);
            buffer.erase(0, newline + 1);
            return true;
        }
        pollfd watch{fd, POLLIN, 0};
        const int ready = ::poll(&watch, 1, timeout_ms);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            if (ready == 0)
                std::fprintf(stderr, "kiln msg: kiln did not answer within %d s\n", timeout_ms / 1000);
            return false;
        }
        char chunk[16 * 1024];
        const ssize_t got = ::read(fd, chunk, sizeof(chunk));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        buffer.append(chunk, static_cast<size_t>(got));
    }
}

// The reply said ok; otherwise its error goes to stderr.
bool reply_ok(const std::string& reply)
{
    if (reply.rfind("{\"ok\":true", 0) == 0)  // kiln writes "ok" first
        return true;
    ParsedRequest parsed = parse_request(reply);  // an error reply is one flat object
    const std::string* error = parsed.request ? parsed.request->string("error") : nullptr;
    std::fprintf(stderr, "kiln msg: %s\n", error ? error->c_str() : ("unexpected reply: " + reply).c_str());
    return false;
}

}  // namespace

int run_msg(int argc, char* argv[])
{
    // kiln's main() blocks these for the compositor's signalfd; a client ends on Ctrl+C as any other.
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGHUP);
    sigprocmask(SIG_UNBLOCK, &handled, nullptr);

    std::string socket_path;
    std::vector<const char*> args;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (args.empty() && (arg == "-h" || arg == "--help")) {
            std::fputs(usage_text, stdout);
            return 0;
        }
        if (args.empty() && arg == "--socket") {
            if (i + 1 >= argc)
                return usage_error("--socket needs a path");
            socket_path = argv[++i];
        } else if (args.empty() && arg.rfind("--socket=", 0) == 0) {
            socket_path = arg.substr(9);
        } else if (args.empty() && arg.size() > 1 && arg[0] == '-') {
            return usage_error("unknown option " + arg);
        } else {
            args.push_back(argv[i]);
        }
    }
    if (args.empty())
        return usage_error("no command");
    std::string error;
    const std::string request = build_request(args, error);
    if (request.empty())
        return usage_error(error);
    if (request.find('\n') != std::string::npos)
        return usage_error("a request is one line");

    if (socket_path.empty()) {
        if (const char* env = std::getenv("KILN_SOCKET"); env && *env)
            socket_path = env;
        else if (const char* display = std::getenv("WAYLAND_DISPLAY"); display && *display)
            socket_path = control_socket_path(display, error);
        if (socket_path.empty()) {
            std::fprintf(stderr, "kiln msg: no socket: KILN_SOCKET is not set%s (or give --socket PATH)\n",
                         error.empty() ? " and neither is WAYLAND_DISPLAY" : ("; " + error).c_str());
            return 1;
        }
    }
    const int fd = connect_to(socket_path);
    if (fd < 0)
        return 1;
    const std::string line = request + "\n";
    for (size_t sent = 0; sent < line.size();) {
        const ssize_t n = ::send(fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            std::fprintf(stderr, "kiln msg: cannot send the request: %s\n", std::strerror(errno));
            ::close(fd);
            return 1;
        }
        sent += static_cast<size_t>(n);
    }
    std::string buffer, reply;
    if (!read_line(fd, buffer, reply, reply_timeout_ms)) {
        std::fprintf(stderr, "kiln msg: kiln closed the connection without a reply\n");
        ::close(fd);
        return 1;
    }
    const bool ok = reply_ok(reply);
    if (ok)
        std::printf("%s\n", reply.c_str());
    if (!ok || std::strcmp(args[0], "subscribe") != 0) {
        ::close(fd);
        return ok ? 0 : 1;
    }
    // Subscribed: each event as kiln sends it, until kiln goes.
    std::fflush(stdout);
    std::string event;
    while (read_line(fd, buffer, event, -1)) {
        std::printf("%s\n", event.c_str());
        std::fflush(stdout);
    }
    ::close(fd);
    return 0;
}

}  // namespace kiln::compositor::ipc
