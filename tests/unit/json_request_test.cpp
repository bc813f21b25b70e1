// kiln msg's JSON: the strict request reader refuses what is not one flat object, and the writer escapes titles.
#include "compositor/ipc/json_request.hpp"
#include "compositor/ipc/json_writer.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace kiln::compositor::ipc;

TEST_CASE("a flat object's strings, integers, booleans and null are read")
{
    ParsedRequest parsed = parse_request(R"( {"command":"move", "id":-42,"workspace":"w\u00e9b \ud83d\ude00\n","x":true,"y":null} )");
    REQUIRE(parsed.request);
    const Request& request = *parsed.request;
    CHECK(*request.string("command") == "move");
    CHECK(request.integer("id") == -42);
    CHECK(*request.string("workspace") == "w\xc3\xa9" "b \xf0\x9f\x98\x80\n");
    CHECK(std::get<bool>(request.fields.at("x")));
    CHECK(std::holds_alternative<JsonNull>(request.fields.at("y")));
    CHECK(request.string("id") == nullptr);
    CHECK(!request.integer("command"));
    CHECK(parse_request("{}").request);
}

TEST_CASE("anything else is refused with a reason")
{
    const char* bad[] = {
        "",                                       // nothing
        "[]",                                     // not an object
        R"({"command":"a"} {})",                  // text after it
        R"({"command":{"x":1}})",                 // nested object
        R"({"id":[1]})",                          // nested array
        R"({"id":1.5})",                          // not an integer
        R"({"id":1e3})",                          // exponent
        R"({"id":01})",                           // leading zero
        R"({"id":99999999999999999999})",         // past 64 bits
        R"({"a":1,"a":2})",                       // duplicate key
        R"({"a":"\ud800"})",                      // lone surrogate
        R"({"a":"\x"})",                          // bad escape
        "{\"a\":\"tab\there\"}",                  // raw control character
        R"({"a":"open)",                          // unclosed string
        R"({"a" 1})",                             // no colon
        R"({"a":1,})",                            // trailing comma
        R"({a:1})",                               // unquoted key
        R"({"a":tru})",                           // bad literal
    };
    for (const char* line : bad) {
        INFO(line);
        ParsedRequest parsed = parse_request(line);
        CHECK(!parsed.request);
        CHECK(parsed.error.rfind("not a valid request: ", 0) == 0);
    }
    std::string many = "{";
    for (size_t i = 0; i <= max_request_keys; ++i)
        many += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
    many += "}";
    CHECK(!parse_request(many).request);
}

TEST_CASE("the writer escapes control characters and replaces bytes that are not UTF-8")
{
    CHECK(JsonWriter::quote("a\"b\\c\n\x01") == R"("a\"b\\c\n\u0001")");
    CHECK(JsonWriter::quote("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
    CHECK(JsonWriter::quote("bad\xff\xc3") == "\"bad\xef\xbf\xbd\xef\xbf\xbd\"");
    CHECK(JsonWriter::quote("\xc0\x80") == "\"\xef\xbf\xbd\xef\xbf\xbd\"");  // overlong NUL
    JsonWriter json;
    json.begin_object().key("a").begin_array().value(1).value(true).null().value("x").end_array()
        .key("b").value(static_cast<const char*>(nullptr)).key("c").value(1.5).end_object();
    CHECK(json.text() == R"({"a":[1,true,null,"x"],"b":null,"c":1.5})");
}
