// Cache suite helpers.
#include "tests/cache/cache_fixture.hpp"

#include <array>
#include <cstdlib>
#include <unistd.h>

namespace kiln::test {

TempDir::TempDir()
{
    // Under $TMPDIR when set, so a run can check that it left nothing behind.
    std::string pattern = (std::filesystem::temp_directory_path() / "kiln-cache-test-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
}

TempDir::~TempDir()
{
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
}

GlContext::GlContext()
{
    std::string error;
    display = renderer::EglDisplay::open({}, error);
    REQUIRE(display);
    REQUIRE(display->make_current());
}

renderer::ProgramSource colour_program(const std::string& name, int variant,
                                       std::vector<renderer::AttributeBinding> attributes)
{
    renderer::ProgramSource source;
    source.name = name;
    source.vertex = "#version 100\nattribute vec2 pos;\nattribute vec2 extra;\n"
                    "void main() { gl_Position = vec4(pos * 2.0 - 1.0 + extra * 0.0, 0.0, 1.0); }\n";
    source.fragment = "#version 100\nprecision mediump float;\nuniform vec3 colour;\nvoid main() {\n"
                      "  gl_FragColor = vec4(colour + vec3(" + std::to_string(variant) + ".0 * 0.0), 1.0);\n}\n";
    source.attributes = std::move(attributes);
    return source;
}

uint32_t draw_centre(GLuint program, float r, float g, float b)
{
    // No Catch2 macros here: child processes of the suite call this outside a test run.
    std::string error;
    auto target = renderer::RenderTarget::for_cpu(renderer::fourcc::xrgb8888, 4, 4, error);
    if (!target)
        return 0xdeadbeef;
    std::array<uint32_t, 16> pixels{};
    target->set_destination(pixels.data(), 16);
    glBindFramebuffer(GL_FRAMEBUFFER, target->framebuffer());
    glViewport(0, 0, 4, 4);
    glClearColor(0, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(program);
    glUniform3f(glGetUniformLocation(program, "colour"), r, g, b);
    static const GLfloat quad[] = {0, 0, 1, 0, 0, 1, 1, 1};
    const GLint pos = glGetAttribLocation(program, "pos");
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glVertexAttribPointer(static_cast<GLuint>(pos), 2, GL_FLOAT, GL_FALSE, 0, quad);
    glEnableVertexAttribArray(static_cast<GLuint>(pos));
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glDisableVertexAttribArray(static_cast<GLuint>(pos));
    renderer::RendererStats stats;
    if (!target->read_back(true, stats))
        return 0xdeadbeef;
    return pixels[5] & 0xffffff;
}

cache::CacheOptions quiet_options(const std::filesystem::path& user_dir, const std::filesystem::path& system_dir)
{
    cache::CacheOptions options;
    options.user_dir = user_dir;
    options.system_dir = system_dir;
    options.log = [](const std::string&) {};
    return options;
}

std::string self_path()
{
    return std::filesystem::read_symlink("/proc/self/exe").string();
}

}  // namespace kiln::test
