// libFuzzer target for kiln's command line parser: the fuzzed bytes split on NUL into argv.
#include "compositor/session/options.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::vector<std::string> words{"kiln"};
    std::string word;
    for (size_t i = 0; i < size && words.size() < 64; ++i) {
        if (data[i] == 0) {
            words.push_back(word);
            word.clear();
        } else {
            word.push_back(static_cast<char>(data[i]));
        }
    }
    if (!word.empty() && words.size() < 64)
        words.push_back(word);
    std::vector<const char*> argv;
    for (const auto& w : words)
        argv.push_back(w.c_str());
    argv.push_back(nullptr);

    const auto result = kiln::compositor::parse_options(static_cast<int>(words.size()), argv.data());
    auto fail = [](const char* what) {
        std::fprintf(stderr, "options_fuzzer: %s\n", what);
        std::abort();
    };
    if (result.options.has_value() == !result.error.empty())
        fail("a result must hold either options or an error, not both or neither");
    if (result.options) {
        const auto& o = *result.options;
        if (o.headless_width < 1 || o.headless_width > 16384 || o.headless_height < 1 || o.headless_height > 16384)
            fail("accepted a headless size outside 1..16384");
        if (std::string(kiln::compositor::backend_name(o.backend)) == "?")
            fail("accepted a backend with no name");
        if (o.socket.find('/') != std::string::npos)
            fail("accepted a socket name with a '/'");
    }
    if (kiln::compositor::usage(argv[0]).empty())
        fail("empty usage text");
    return 0;
}
