// kiln-portal's strict JSON reader (kiln msg's replies): what kiln sends is read, anything malformed is refused.
#include "json_value.hpp"

#include <catch2/catch_test_macros.hpp>

#include <string>

using namespace portal;

TEST_CASE("a kiln msg reply is read whole") {
    std::string error;
    auto reply = parse_json(R"({"ok":true,"windows":[{"id":4,"title":"caf\u00e9 \"x\"","app_id":null,)"
                            R"("identifier":"ab-1","x":-2.5e1,"focused":true,"minimized":false}]} )",
                            error);
    REQUIRE(reply);
    CHECK(reply->true_at("ok"));
    const JsonValue* windows = reply->member("windows");
    REQUIRE(windows);
    REQUIRE(windows->kind == JsonValue::Kind::array);
    REQUIRE(windows->array.size() == 1);
    const JsonValue& window = windows->array[0];
    CHECK(*window.string_of("title") == "caf\xc3\xa9 \"x\"");
    CHECK(window.string_of("app_id") == nullptr);
    CHECK(*window.string_of("identifier") == "ab-1");
    CHECK(window.member("x")->number == -25);
    CHECK(window.true_at("focused"));
    CHECK_FALSE(window.true_at("minimized"));
    CHECK_FALSE(window.true_at("absent"));
}

TEST_CASE("a surrogate pair is one code point") {
    std::string error;
    auto text = parse_json(R"("\ud83d\ude00")", error);
    REQUIRE(text);
    CHECK(text->string == "\xf0\x9f\x98\x80");
}

TEST_CASE("malformed JSON is refused with a reason") {
    for (const char* bad : {"", "{", "{\"a\":1,}", "[1,]", "{\"a\":1}{}", "{\"a\":1,\"a\":2}", "{a:1}", "01", "1.",
                            "\"\\x\"", "\"\\ud800\"", "\"tab\there\"", "tru", "[1 2]", "{\"a\" 1}", "\"open"}) {
        std::string error;
        INFO(bad);
        CHECK_FALSE(parse_json(bad, error));
        CHECK_FALSE(error.empty());
    }
}

TEST_CASE("nesting past 32 is refused") {
    std::string error;
    CHECK(parse_json(std::string(32, '[') + std::string(32, ']'), error));
    CHECK_FALSE(parse_json(std::string(40, '[') + std::string(40, ']'), error));
}
