// SwayIpcConnection: i3-ipc's framing (magic, length, type, payload) on a client's socket.
#include "compositor/ipc/sway_ipc_connection.hpp"

#include "compositor/ipc/json_writer.hpp"

#include <cstring>
#include <string>

namespace kiln::compositor::ipc {

SwayIpcConnection::SwayIpcConnection(wl_event_loop* loop, int fd, MessageHandler message,
                                     std::function<void(SwayIpcConnection&)> closed)
    : message_(std::move(message)),
      stream_(loop, fd, "sway IPC", max_sway_queued,
              [this](std::string_view pending) { return take_messages(pending); },
              [this, closed = std::move(closed)] {
                  if (closed)
                      closed(*this);
              })
{
}

size_t SwayIpcConnection::take_messages(std::string_view pending)
{
    size_t start = 0;
    while (!closed() && pending.size() - start >= sway_ipc_header) {
        const char* header = pending.data() + start;
        if (std::string_view(header, sway_ipc_magic.size()) != sway_ipc_magic) {
            // Not i3-ipc (or out of step with it): nothing kiln could answer would be read as a reply.
            close("its message does not start with \"i3-ipc\"");
            return start;
        }
        uint32_t length = 0;
        uint32_t type = 0;
        std::memcpy(&length, header + sway_ipc_magic.size(), sizeof(length));
        std::memcpy(&type, header + sway_ipc_magic.size() + 4, sizeof(type));
        if (length > max_sway_payload) {
            JsonWriter reply;
            reply.begin_object().key("success").value(false).key("error")
                .value("payload of " + std::to_string(length) + " bytes is longer than kiln reads (" +
                       std::to_string(max_sway_payload) + "); disconnected")
                .end_object();
            send(type, reply.text());
            close("its message was too long");
            return start;
        }
        if (pending.size() - start - sway_ipc_header < length)
            break;  // the rest of the payload is still on its way
        message_(*this, type, pending.substr(start + sway_ipc_header, length));
        start += sway_ipc_header + length;
    }
    return start;
}

void SwayIpcConnection::send(uint32_t type, std::string_view payload)
{
    const auto length = static_cast<uint32_t>(payload.size());
    stream_.send({sway_ipc_magic, std::string_view(reinterpret_cast<const char*>(&length), sizeof(length)),
                  std::string_view(reinterpret_cast<const char*>(&type), sizeof(type)), payload});
}

}  // namespace kiln::compositor::ipc
