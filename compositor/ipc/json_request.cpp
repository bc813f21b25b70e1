// The strict reader of `kiln msg` requests: a flat JSON object (RFC 8259 strings, integers, true, false, null).
#include "compositor/ipc/json_request.hpp"

#include <charconv>

namespace kiln::compositor::ipc {

namespace {

class Reader {
public:
    explicit Reader(std::string_view text) : text_(text) {}

    ParsedRequest read()
    {
        Request request;
        skip_space();
        if (!eat('{'))
            return fail("a request is one JSON object on one line, like {\"command\":\"windows\"}");
        skip_space();
        if (!eat('}')) {
            for (;;) {
                skip_space();
                std::string key;
                if (peek() != '"' || !read_string(key))
                    return fail(error_.empty() ? "expected a quoted key" : error_);
                skip_space();
                if (!eat(':'))
                    return fail("expected ':' after the key \"" + key + "\"");
                skip_space();
                JsonScalar value;
                if (!read_value(key, value))
                    return fail(error_);
                if (request.fields.contains(key))
                    return fail("the key \"" + key + "\" is given twice");
                if (request.fields.size() == max_request_keys)
                    return fail("more than " + std::to_string(max_request_keys) + " keys");
                request.fields.emplace(std::move(key), std::move(value));
                skip_space();
                if (eat(','))
                    continue;
                if (eat('}'))
                    break;
                return fail("expected ',' or '}' in the object");
            }
        }
        skip_space();
        if (at_ < text_.size())
            return fail("text after the request's object");
        return {std::move(request), {}};
    }

private:
    ParsedRequest fail(std::string error) { return {std::nullopt, "not a valid request: " + std::move(error)}; }

    char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
    bool eat(char c)
    {
        if (peek() != c || at_ >= text_.size())
            return false;
        ++at_;
        return true;
    }
    void skip_space()
    {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\r' ||
                                      text_[at_] == '\n'))
            ++at_;
    }
    bool literal(std::string_view word)
    {
        if (text_.substr(at_, word.size()) != word)
            return false;
        at_ += word.size();
        return true;
    }

    bool read_value(const std::string& key, JsonScalar& value)
    {
        const char c = peek();
        if (c == '"') {
            std::string text;
            if (!read_string(text))
                return false;
            value = std::move(text);
            return true;
        }
        if (c == '-' || (c >= '0' && c <= '9'))
            return read_integer(key, value);
        if (literal("true")) {
            value = true;
            return true;
        }
        if (literal("false")) {
            value = false;
            return true;
        }
        if (literal("null")) {
            value = JsonNull{};
            return true;
        }
        if (c == '{' || c == '[')
            error_ = "the value of \"" + key + "\" is an object or array; requests take strings, integers and "
                     "booleans only";
        else
            error_ = "the value of \"" + key + "\" is not a JSON value";
        return false;
    }

    bool read_integer(const std::string& key, JsonScalar& value)
    {
        const size_t start = at_;
        eat('-');
        if (peek() == '0' && at_ + 1 < text_.size() && text_[at_ + 1] >= '0' && text_[at_ + 1] <= '9') {
            error_ = "the number of \"" + key + "\" has a leading zero";
            return false;
        }
        while (peek() >= '0' && peek() <= '9')
            ++at_;
        if (peek() == '.' || peek() == 'e' || peek() == 'E') {
            error_ = "the number of \"" + key + "\" is not an integer";
            return false;
        }
        int64_t number = 0;
        const char* first = text_.data() + start;
        const char* last = text_.data() + at_;
        auto [end, ec] = std::from_chars(first, last, number);
        if (ec != std::errc{} || end != last) {
            error_ = "the number of \"" + key + "\" is not a 64-bit integer";
            return false;
        }
        value = number;
        return true;
    }

    static void append_utf8(std::string& out, uint32_t code)
    {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xc0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3f));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xe0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (code & 0x3f));
        } else {
            out += static_cast<char>(0xf0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (code & 0x3f));
        }
    }

    bool read_hex4(uint32_t& code)
    {
        if (at_ + 4 > text_.size())
            return false;
        code = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = text_[at_++];
            code <<= 4;
            if (c >= '0' && c <= '9')
                code |= static_cast<uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f')
                code |= static_cast<uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                code |= static_cast<uint32_t>(c - 'A' + 10);
            else
                return false;
        }
        return true;
    }

    bool read_string(std::string& out)
    {
        eat('"');
        for (;;) {
            if (at_ >= text_.size()) {
                error_ = "a string is not closed";
                return false;
            }
            const unsigned char c = static_cast<unsigned char>(text_[at_++]);
            if (c == '"')
                return true;
            if (c < 0x20) {
                error_ = "a control character inside a string";
                return false;
            }
            if (c != '\\') {
                out += static_cast<char>(c);
                continue;
            }
            const char escape = at_ < text_.size() ? text_[at_++] : '\0';
            switch (escape) {
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
                if (!read_hex4(code)) {
                    error_ = "a bad \\u escape";
                    return false;
                }
                if (code >= 0xd800 && code <= 0xdbff) {
                    uint32_t low = 0;
                    if (!literal("\\u") || !read_hex4(low) || low < 0xdc00 || low > 0xdfff) {
                        error_ = "a lone surrogate in a \\u escape";
                        return false;
                    }
                    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                } else if (code >= 0xdc00 && code <= 0xdfff) {
                    error_ = "a lone surrogate in a \\u escape";
                    return false;
                }
                append_utf8(out, code);
                break;
            }
            default:
                error_ = "a bad escape in a string";
                return false;
            }
        }
    }

    std::string_view text_;
    size_t at_ = 0;
    std::string error_;
};

}  // namespace

const std::string* Request::string(std::string_view key) const
{
    auto it = fields.find(key);
    return it == fields.end() ? nullptr : std::get_if<std::string>(&it->second);
}

std::optional<int64_t> Request::integer(std::string_view key) const
{
    auto it = fields.find(key);
    if (it == fields.end())
        return std::nullopt;
    if (const int64_t* number = std::get_if<int64_t>(&it->second))
        return *number;
    return std::nullopt;
}

ParsedRequest parse_request(std::string_view line)
{
    return Reader(line).read();
}

const char* type_name(const JsonScalar& value)
{
    switch (value.index()) {
    case 0: return "null";
    case 1: return "a boolean";
    case 2: return "an integer";
    default: return "a string";
    }
}

}  // namespace kiln::compositor::ipc
