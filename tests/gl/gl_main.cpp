// Entry point of the GL test binaries: skip (77) with a reason when this machine has no EGL at all.
#include "tests/gl/gl_fixture.hpp"

#include <catch2/catch_session.hpp>

#include <cstdio>

namespace kiln::test {

bool egl_unavailable(std::string& why)
{
    auto display = renderer::EglDisplay::open({}, why);
    return !display;
}

}  // namespace kiln::test

int main(int argc, char* argv[])
{
    std::string why;
    if (kiln::test::egl_unavailable(why)) {
        std::printf("SKIP: no EGL display on this machine (%s)\n", why.c_str());
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
