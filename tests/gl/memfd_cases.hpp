// Cases that hand the display a memfd as a dma-buf: the display's answer decides whether they run, skip with the
// driver's reason, or fail (memfd_import_verdict.hpp).
#pragma once

#include "tests/gl/gl_fixture.hpp"
#include "tests/gl/memfd_import_verdict.hpp"

#include <GLES2/gl2.h>

#include <catch2/catch_test_macros.hpp>

#include <string>

namespace kiln::test {

inline std::string gl_renderer_name()
{
    const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return name ? name : "an unnamed GL renderer";
}

inline MemfdImportVerdict memfd_verdict(const GlFixture& gl, const std::string& format, bool offered, bool imported,
                                        const std::string& error)
{
    return memfd_import_verdict({gl_renderer_name(), format, gl.display->is_software(), offered, imported, error});
}

// Ends the case as the verdict says: skipped with the reason, failed with it, or carries on.
inline void require_memfd_import(const GlFixture& gl, const std::string& format, bool offered, bool imported,
                                 const std::string& error)
{
    const auto verdict = memfd_verdict(gl, format, offered, imported, error);
    if (verdict.kind == MemfdImportVerdict::Kind::skip)
        SKIP(verdict.reason);
    if (verdict.kind == MemfdImportVerdict::Kind::fail)
        FAIL(verdict.reason);
}

}  // namespace kiln::test
