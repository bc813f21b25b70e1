// JsonWriter: builds one line of JSON (objects, arrays, strings, integers, booleans, null) with strings escaped,
// for `kiln msg`'s replies and events.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compositor::ipc {

class JsonWriter {
public:
    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    // The key of the next value inside an object.
    JsonWriter& key(std::string_view name);
    JsonWriter& value(std::string_view text);
    JsonWriter& value(const char* text);  // null pointer: JSON null
    JsonWriter& value(int64_t number);
    JsonWriter& value(int number) { return value(static_cast<int64_t>(number)); }
    JsonWriter& value(uint32_t number) { return value(static_cast<int64_t>(number)); }
    JsonWriter& value(bool flag);
    JsonWriter& value(double number);  // finite; 6 significant digits
    JsonWriter& null();
    // The text so far (a finished value once every object and array is closed).
    const std::string& text() const { return out_; }

    // `text` as a JSON string, quotes included: control characters escaped, bytes that are not UTF-8 replaced by
    // U+FFFD (a window title is whatever its client sent).
    static std::string quote(std::string_view text);

private:
    void separate();

    std::string out_;
    std::vector<bool> first_;  // per open object or array: no value in it yet
    bool after_key_ = false;
};

}  // namespace kiln::compositor::ipc
