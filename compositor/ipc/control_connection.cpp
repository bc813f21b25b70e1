// ControlConnection: `kiln msg`'s framing (a request per line, a reply or event per line) on a client's socket.
#include "compositor/ipc/control_connection.hpp"

#include "compositor/ipc/json_writer.hpp"

#include <string>

namespace kiln::compositor::ipc {

ControlConnection::ControlConnection(wl_event_loop* loop, int fd, LineHandler line,
                                     std::function<void(ControlConnection&)> closed)
    : line_(std::move(line)),
      stream_(loop, fd, "kiln msg", max_queued_output, [this](std::string_view pending) { return take_lines(pending); },
              [this, closed = std::move(closed)] {
                  if (closed)
                      closed(*this);
              })
{
}

size_t ControlConnection::take_lines(std::string_view pending)
{
    // Each whole line is a request; the client may be closed by one (its replies overflowing).
    size_t start = 0;
    for (size_t end; !closed() && (end = pending.find('\n', start)) != std::string_view::npos; start = end + 1) {
        if (end - start > max_request_line)
            break;
        std::string_view line = pending.substr(start, end - start);
        if (line.find_first_not_of(" \t\r") == std::string_view::npos)
            continue;  // an empty line asks nothing
        line_(*this, line);
    }
    if (closed())
        return start;
    // What is left has no newline yet; past the limit it never will be a request kiln reads.
    const std::string_view rest = pending.substr(start);
    const size_t newline = rest.find('\n');
    if ((newline == std::string_view::npos ? rest.size() : newline) > max_request_line) {
        JsonWriter reply;
        reply.begin_object().key("ok").value(false).key("error")
            .value("request line longer than " + std::to_string(max_request_line) + " bytes; disconnected")
            .end_object();
        send(reply.text());
        close("its request line was too long");
    }
    return start;
}

}  // namespace kiln::compositor::ipc
