// The request-hook table: handlers by interface name, then opcode, kept sorted by HookOrder and registration.
#include "compositor/protocol_kit/request_hooks.hpp"

#include "compositor/log.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace kiln::compositor {

RequestTable::Hook::Hook(Hook&& other) noexcept : table_(other.table_), id_(other.id_)
{
    other.table_ = nullptr;
}

RequestTable::Hook& RequestTable::Hook::operator=(Hook&& other) noexcept
{
    if (this != &other) {
        if (table_)
            table_->remove(id_);
        table_ = other.table_;
        id_ = other.id_;
        other.table_ = nullptr;
    }
    return *this;
}

RequestTable::Hook::~Hook()
{
    if (table_)
        table_->remove(id_);
}

RequestTable::Hook RequestTable::add(std::string_view interface, uint32_t opcode, HookOrder order, Handler handler)
{
    auto found = by_interface_.find(interface);
    if (found == by_interface_.end())
        found = by_interface_.emplace(std::string(interface), std::vector<Entry>{}).first;
    auto& entries = found->second;
    const uint64_t id = next_id_++;
    // After every entry of an earlier or the same order: ids rise, so the same order keeps registration order.
    const auto at = std::upper_bound(entries.begin(), entries.end(), order,
                                     [](HookOrder o, const Entry& entry) { return o < entry.order; });
    entries.insert(at, Entry{opcode, order, id, std::move(handler)});
    return Hook(this, id);
}

RequestTable::Hook RequestTable::add(const wl_interface& interface, std::string_view request, HookOrder order,
                                     Handler handler)
{
    for (int opcode = 0; opcode < interface.method_count; ++opcode)
        if (request == interface.methods[opcode].name)
            return add(interface.name, static_cast<uint32_t>(opcode), order, std::move(handler));
    log::error("%s has no request %.*s", interface.name, static_cast<int>(request.size()),
               request.data());
    std::abort();
}

void RequestTable::dispatch(std::string_view interface, uint32_t opcode,
                            const wl_protocol_logger_message& message) const
{
    const auto found = by_interface_.find(interface);
    if (found == by_interface_.end())
        return;
    for (const Entry& entry : found->second)
        if (entry.opcode == opcode || entry.opcode == any_request)
            entry.handler(message);
}

size_t RequestTable::size() const
{
    size_t n = 0;
    for (const auto& [interface, entries] : by_interface_)
        n += entries.size();
    return n;
}

void RequestTable::remove(uint64_t id)
{
    for (auto it = by_interface_.begin(); it != by_interface_.end(); ++it) {
        auto& entries = it->second;
        const auto entry = std::find_if(entries.begin(), entries.end(), [id](const Entry& e) { return e.id == id; });
        if (entry == entries.end())
            continue;
        entries.erase(entry);
        if (entries.empty())
            by_interface_.erase(it);
        return;
    }
}

RequestHooks::RequestHooks(wl_display* display)
    : logger_(display ? wl_display_add_protocol_logger(display, &RequestHooks::on_message, this) : nullptr)
{
}

RequestHooks::~RequestHooks()
{
    if (logger_)
        wl_protocol_logger_destroy(logger_);
}

void RequestHooks::on_message(void* data, wl_protocol_logger_type type,
                              const wl_protocol_logger_message* message) noexcept
{
    if (type != WL_PROTOCOL_LOGGER_REQUEST)
        return;
    static_cast<RequestHooks*>(data)->dispatch(wl_resource_get_class(message->resource), message->message_opcode,
                                               *message);
}

}  // namespace kiln::compositor
