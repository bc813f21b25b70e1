// kiln-portal's answer to xdg-desktop-portal's permission questions (the Access portal): unsandboxed apps granted,
// sandboxed ones only when --allow names them, --deny over both.
#include "portal/access_portal.hpp"

#include <catch2/catch_test_macros.hpp>

using portal::AccessAnswer;
using portal::access_answer;

TEST_CASE("Access: an unsandboxed app is granted, a sandboxed one only when --allow names it")
{
    portal::PortalOptions options;
    CHECK(access_answer(options, "") == AccessAnswer::granted);
    CHECK(access_answer(options, "org.example.Editor") == AccessAnswer::denied_sandboxed);
    options.allowed = {"org.example.Editor"};
    CHECK(access_answer(options, "org.example.Editor") == AccessAnswer::granted);
    CHECK(access_answer(options, "org.example.Other") == AccessAnswer::denied_sandboxed);
}

TEST_CASE("Access: --deny wins over --allow and over being unsandboxed; '*' in --allow grants nothing")
{
    portal::PortalOptions options;
    options.allowed = {"org.example.Editor", "*"};
    CHECK(access_answer(options, "org.example.Other") == AccessAnswer::denied_sandboxed);
    options.denied = {"org.example.Editor"};
    CHECK(access_answer(options, "org.example.Editor") == AccessAnswer::denied_listed);
    CHECK(access_answer(options, "") == AccessAnswer::granted);
    options.denied = {"*"};
    CHECK(access_answer(options, "") == AccessAnswer::denied_listed);
}

TEST_CASE("refused: what kiln-portal gives unasked (screen casts, colour picks) follows the same policy")
{
    portal::PortalOptions options;
    CHECK_FALSE(portal::refused(options, "", "screen cast"));
    CHECK(portal::refused(options, "org.example.Editor", "screen cast"));
    options.allowed = {"org.example.Editor"};
    CHECK_FALSE(portal::refused(options, "org.example.Editor", "screen cast"));
    options.denied = {"*"};
    CHECK(portal::refused(options, "org.example.Editor", "screen cast"));
    CHECK(portal::refused(options, "", "colour pick"));
}
