// JsonValue: a strict reader of one JSON text (kiln msg's replies) into a tree of values.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace portal {

struct JsonValue {
    enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<JsonValue> array;
    std::map<std::string, JsonValue, std::less<>> object;

    // The member `key` of an object, or nullptr (not an object, or no such member).
    const JsonValue* member(std::string_view key) const;
    // The member's string (nullptr unless it is one) and boolean (false unless it is true).
    const std::string* string_of(std::string_view key) const;
    bool true_at(std::string_view key) const;
};

// The value `text` holds, whitespace around it allowed and nothing else; nullopt (with `error`) where it is not
// JSON, nests deeper than 32 or repeats a key.
std::optional<JsonValue> parse_json(std::string_view text, std::string& error);

}  // namespace portal
