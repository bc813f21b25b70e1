// The GL suite's verdict on memfd-backed dma-buf cases, with the display's answers faked: red on Mesa's software
// driver when it refuses, skipped with the driver's reason on hardware that imports only real dma-bufs.
#include "tests/gl/memfd_import_verdict.hpp"

#include <catch2/catch_test_macros.hpp>

using kiln::test::memfd_import_verdict;
using kiln::test::MemfdImportAnswer;
using Kind = kiln::test::MemfdImportVerdict::Kind;

namespace {

MemfdImportAnswer answer(bool software, bool offered, bool imported)
{
    return {software ? "llvmpipe (LLVM 15.0.7, 256 bits)" : "NVIDIA H200/PCIe/SSE2", "NV12", software, offered,
            imported, imported ? "" : (software ? "EGL_BAD_MATCH" : "EGL_BAD_ACCESS")};
}

}  // namespace

TEST_CASE("software GL that imports the memfd runs the case")
{
    CHECK(memfd_import_verdict(answer(true, true, true)).kind == Kind::run);
}

TEST_CASE("software GL that refuses a memfd or does not offer the format fails the case: kiln broke it")
{
    const auto refused = memfd_import_verdict(answer(true, true, false));
    CHECK(refused.kind == Kind::fail);
    CHECK(refused.reason.find("EGL_BAD_MATCH") != std::string::npos);
    const auto missing = memfd_import_verdict(answer(true, false, false));
    CHECK(missing.kind == Kind::fail);
    CHECK(missing.reason.find("NV12 is not offered") != std::string::npos);
}

TEST_CASE("hardware GL that refuses a memfd skips with the driver's reason")
{
    const auto refused = memfd_import_verdict(answer(false, true, false));
    CHECK(refused.kind == Kind::skip);
    CHECK(refused.reason.find("a memfd is no dma-buf to NVIDIA H200") != std::string::npos);
    CHECK(refused.reason.find("EGL_BAD_ACCESS") != std::string::npos);
    const auto missing = memfd_import_verdict(answer(false, false, false));
    CHECK(missing.kind == Kind::skip);
    CHECK(missing.reason.find("does not offer NV12") != std::string::npos);
}

TEST_CASE("hardware GL that imports the memfd runs the case")
{
    CHECK(memfd_import_verdict(answer(false, true, true)).kind == Kind::run);
}
