// A strict recursive-descent JSON reader: RFC 8259's grammar, no comments, no trailing commas, no duplicate keys.
#include "json_value.hpp"

#include <cstdlib>

namespace portal {

namespace {

constexpr int max_depth = 32;

class Reader {
public:
    explicit Reader(std::string_view text) : text_(text) {}

    bool document(JsonValue& value) {
        if (!parse(value, 0))
            return false;
        skip_space();
        return at_ == text_.size() || fail("text after the value");
    }
    const std::string& error() const { return error_; }

private:
    bool fail(const char* what) {
        if (error_.empty())
            error_ = std::string(what) + " at byte " + std::to_string(at_);
        return false;
    }
    void skip_space() {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' ||
                                      text_[at_] == '\r'))
            ++at_;
    }
    bool literal(std::string_view word) {
        if (text_.substr(at_, word.size()) != word)
            return fail("an unknown word");
        at_ += word.size();
        return true;
    }
    bool parse(JsonValue& value, int depth) {
        if (depth > max_depth)
            return fail("nesting too deep");
        skip_space();
        if (at_ >= text_.size())
            return fail("the end where a value belongs");
        char c = text_[at_];
        if (c == '{')
            return object(value, depth);
        if (c == '[')
            return array(value, depth);
        if (c == '"') {
            value.kind = JsonValue::Kind::string;
            return string(value.string);
        }
        if (c == 't' || c == 'f') {
            value.kind = JsonValue::Kind::boolean;
            value.boolean = c == 't';
            return literal(c == 't' ? "true" : "false");
        }
        if (c == 'n') {
            value.kind = JsonValue::Kind::null;
            return literal("null");
        }
        return number(value);
    }
    bool number(JsonValue& value) {
        size_t start = at_;
        auto digits = [&] {
            size_t from = at_;
            while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9')
                ++at_;
            return at_ > from;
        };
        if (at_ < text_.size() && text_[at_] == '-')
            ++at_;
        if (at_ < text_.size() && text_[at_] == '0')
            ++at_;
        else if (!digits())
            return fail("a bad value");
        if (at_ < text_.size() && text_[at_] == '.' && (++at_, !digits()))
            return fail("a bad number");
        if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
            ++at_;
            if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-'))
                ++at_;
            if (!digits())
                return fail("a bad number");
        }
        value.kind = JsonValue::Kind::number;
        value.number = std::strtod(std::string(text_.substr(start, at_ - start)).c_str(), nullptr);
        return true;
    }
    bool hex4(uint32_t& code) {
        if (at_ + 4 > text_.size())
            return fail("a short \\u escape");
        code = 0;
        for (int i = 0; i < 4; ++i) {
            char h = text_[at_++];
            code <<= 4;
            if (h >= '0' && h <= '9') code |= h - '0';
            else if (h >= 'a' && h <= 'f') code |= h - 'a' + 10;
            else if (h >= 'A' && h <= 'F') code |= h - 'A' + 10;
            else return fail("a bad \\u escape");
        }
        return true;
    }
    bool string(std::string& out) {
        ++at_;  // the opening quote
        for (;;) {
            if (at_ >= text_.size())
                return fail("an unterminated string");
            unsigned char c = text_[at_++];
            if (c == '"')
                return true;
            if (c < 0x20)
                return fail("a control character in a string");
            if (c != '\\') {
                out += static_cast<char>(c);
                continue;
            }
            if (at_ >= text_.size())
                return fail("an unterminated string");
            char e = text_[at_++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                uint32_t code = 0;
                if (!hex4(code))
                    return false;
                if (code >= 0xd800 && code < 0xdc00) {  // a surrogate pair
                    uint32_t low = 0;
                    if (text_.substr(at_, 2) != "\\u" || (at_ += 2, !hex4(low)) || low < 0xdc00 || low > 0xdfff)
                        return fail("a lone surrogate");
                    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                } else if (code >= 0xdc00 && code < 0xe000) {
                    return fail("a lone surrogate");
                }
                if (code < 0x80) {
                    out += static_cast<char>(code);
                } else if (code < 0x800) {
                    out += static_cast<char>(0xc0 | code >> 6);
                    out += static_cast<char>(0x80 | (code & 0x3f));
                } else if (code < 0x10000) {
                    out += static_cast<char>(0xe0 | code >> 12);
                    out += static_cast<char>(0x80 | (code >> 6 & 0x3f));
                    out += static_cast<char>(0x80 | (code & 0x3f));
                } else {
                    out += static_cast<char>(0xf0 | code >> 18);
                    out += static_cast<char>(0x80 | (code >> 12 & 0x3f));
                    out += static_cast<char>(0x80 | (code >> 6 & 0x3f));
                    out += static_cast<char>(0x80 | (code & 0x3f));
                }
                break;
            }
            default: return fail("a bad escape");
            }
        }
    }
    bool array(JsonValue& value, int depth) {
        value.kind = JsonValue::Kind::array;
        ++at_;
        skip_space();
        if (at_ < text_.size() && text_[at_] == ']')
            return ++at_, true;
        for (;;) {
            value.array.emplace_back();
            if (!parse(value.array.back(), depth + 1))
                return false;
            skip_space();
            if (at_ < text_.size() && text_[at_] == ',') { ++at_; continue; }
            if (at_ < text_.size() && text_[at_] == ']') return ++at_, true;
            return fail("a bad array");
        }
    }
    bool object(JsonValue& value, int depth) {
        value.kind = JsonValue::Kind::object;
        ++at_;
        skip_space();
        if (at_ < text_.size() && text_[at_] == '}')
            return ++at_, true;
        for (;;) {
            skip_space();
            std::string key;
            if (at_ >= text_.size() || text_[at_] != '"')
                return fail("an object key that is not a string");
            if (!string(key))
                return false;
            skip_space();
            if (at_ >= text_.size() || text_[at_++] != ':')
                return fail("a key without ':'");
            JsonValue member;
            if (!parse(member, depth + 1))
                return false;
            if (!value.object.emplace(std::move(key), std::move(member)).second)
                return fail("a repeated key");
            skip_space();
            if (at_ < text_.size() && text_[at_] == ',') { ++at_; continue; }
            if (at_ < text_.size() && text_[at_] == '}') return ++at_, true;
            return fail("a bad object");
        }
    }

    std::string_view text_;
    size_t at_ = 0;
    std::string error_;
};

}  // namespace

const JsonValue* JsonValue::member(std::string_view key) const {
    if (kind != Kind::object)
        return nullptr;
    auto found = object.find(key);
    return found == object.end() ? nullptr : &found->second;
}

const std::string* JsonValue::string_of(std::string_view key) const {
    const JsonValue* value = member(key);
    return value && value->kind == Kind::string ? &value->string : nullptr;
}

bool JsonValue::true_at(std::string_view key) const {
    const JsonValue* value = member(key);
    return value && value->kind == Kind::boolean && value->boolean;
}

std::optional<JsonValue> parse_json(std::string_view text, std::string& error) {
    Reader reader(text);
    JsonValue value;
    if (!reader.document(value)) {
        error = reader.error();
        return std::nullopt;
    }
    return value;
}

}  // namespace portal
