// A `kiln msg` request: one flat JSON object per line whose values are strings, integers, booleans or null, read
// strictly (nothing nested, no duplicate keys, nothing after the object) so that bad input is refused, not guessed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace kiln::compositor::ipc {

struct JsonNull {
    bool operator==(const JsonNull&) const = default;
};
using JsonScalar = std::variant<JsonNull, bool, int64_t, std::string>;

struct Request {
    std::map<std::string, JsonScalar, std::less<>> fields;

    // The field's value if it is there and of that type.
    const std::string* string(std::string_view key) const;
    std::optional<int64_t> integer(std::string_view key) const;
    bool has(std::string_view key) const { return fields.find(key) != fields.end(); }
};

// What reading a line gave: the request, or why it is not one.
struct ParsedRequest {
    std::optional<Request> request;
    std::string error;
};

// At most this many keys in one request: no command takes more than a few.
inline constexpr size_t max_request_keys = 16;

ParsedRequest parse_request(std::string_view line);

// The JSON type name of a value, for error messages ("a string", "an integer", ...).
const char* type_name(const JsonScalar& value);

}  // namespace kiln::compositor::ipc
