// Program lookups through the tiers, compiles on a miss (sharing compiled shaders), and the driver blob cache.
#include "renderer/cache/tiered_program_cache.hpp"

#include "renderer/elapsed.hpp"
#include "renderer/program_builder.hpp"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>
#include <sys/sysmacros.h>

namespace kiln::cache {

using renderer::Clock;
using renderer::ms_since;

std::filesystem::path default_user_cache_dir()
{
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
        return std::filesystem::path(xdg) / "kiln";
    if (const char* home = std::getenv("HOME"); home && *home == '/')
        return std::filesystem::path(home) / ".cache" / "kiln";
    return {};
}

TieredProgramCache::TieredProgramCache(CacheOptions options)
    : options_(std::move(options)),
      memory_(options_.memory_budget, [this](const Sha1&, const ProgramBinary& evicted) {
          // An evicted program no longer holds its shaders: their compile status goes when the last user goes.
          shaders_.release(evicted.vertex);
          shaders_.release(evicted.fragment);
      })
{
}

TieredProgramCache::~TieredProgramCache()
{
    flush();
    blob_cache_.reset();
    // The tiers' loader threads feed blobs_ under blob_mutex_: stop them before those members go.
    user_.reset();
    system_.reset();
}

void TieredProgramCache::log(const std::string& message) const
{
    if (options_.log)
        options_.log(message);
    else
        std::fprintf(stderr, "kiln: %s\n", message.c_str());
}

std::vector<uint8_t> TieredProgramCache::full_key(std::span<const uint8_t> key) const
{
    std::vector<uint8_t> out(driver_hash_.begin(), driver_hash_.end());
    out.insert(out.end(), key.begin(), key.end());
    return out;
}

void TieredProgramCache::context_ready(void* display, const std::string& device)
{
    identity_ = DriverIdentity::query(display);
    identity_.device = device;
    driver_hash_ = identity_.hash();
    context_known_ = true;

    DiskTierOptions disk_options;
    disk_options.max_bytes = options_.disk_max_bytes;
    disk_options.max_age_days = options_.max_age_days;
    if (!options_.user_dir.empty()) {
        std::string error;
        std::string note;
        user_ = DiskTier::open(options_.user_dir, driver_hash_, disk_options, error, note);
        if (!user_)
            log("program cache: no user tier (" + error + "): programs are compiled every start");
        else if (!note.empty())
            log("program cache: " + note);
    }
    if (!options_.system_dir.empty()) {
        DiskTierOptions read_only = disk_options;
        read_only.writable = false;
        std::string error;
        std::string note;
        system_ = DiskTier::open(options_.system_dir, driver_hash_, read_only, error, note);
        if (!system_)
            log("program cache: no system tier at " + options_.system_dir.string() + " (" + error + ")");
    }
    if (user_) {
        std::string why;
        if (!precompile_.load(user_->directory_fd(), "precompile.list", user_->owner(), why))
            log("program cache: not reading " + (user_->directory() / "precompile.list").string() + ": " + why);
        had_list_ = !precompile_.empty();
    }

    if (options_.blob_cache) {
        blob_cache_ = std::make_unique<BlobCache>(
            [this](std::span<const uint8_t> key, std::span<uint8_t> out) { return blob_get(key, out); },
            [this](std::span<const uint8_t> key, std::span<const uint8_t> value) { blob_set(key, value); });
        std::string why;
        if (!blob_cache_->install(display, why)) {
            log("program cache: driver blob cache not used (" + why + ")");
            blob_cache_.reset();
        }
    }

    // Indexing, collection and blob preloading happen off the compositor thread; lookups meanwhile open entries by
    // name, so the first frame never waits for the index.
    auto preload = [this](std::vector<Entry>&& blobs) {
        std::lock_guard lock(blob_mutex_);
        for (auto& entry : blobs)
            if (!blobs_.contains(entry.key))
                store_blob_locked(std::move(entry.key), std::move(entry.payload));
    };
    if (user_)
        user_->start_background_load(preload);
    if (system_)
        system_->start_background_load(preload);
}

void TieredProgramCache::context_lost()
{
    shaders_.clear();
    links_.clear();
}

renderer::Program TieredProgramCache::load_binary(const ProgramBinary& binary)
{
    renderer::Program program(glCreateProgram());
    while (glGetError() != GL_NO_ERROR) {
    }
    glProgramBinary(program.id(), binary.format, binary.bytes.data(), static_cast<GLsizei>(binary.bytes.size()));
    GLint linked = GL_FALSE;
    glGetProgramiv(program.id(), GL_LINK_STATUS, &linked);
    if (glGetError() != GL_NO_ERROR || linked != GL_TRUE)
        return {};
    return program;
}

void TieredProgramCache::remember(const ProgramKey& key, ProgramBinary binary)
{
    const bool owns_shaders = shaders_.compiled(key.vertex) && shaders_.compiled(key.fragment);
    memory_.put(key.program, std::move(binary));
    if (owns_shaders && memory_.peek(key.program)) {
        shaders_.add_ref(key.vertex);
        shaders_.add_ref(key.fragment);
    }
}

std::optional<renderer::ProgramResult> TieredProgramCache::get(const renderer::ProgramSource& source,
                                                               std::string& error)
{
    const ProgramKey key = program_key(source);
    if (precompile_.record(key.program, source.usage_bits, source.name)) {
        ++stats_.new_programs;
        log("new program encountered: " + source.name + " (" + to_hex(key.program).substr(0, 12) + ")");
    }
    if (const std::string* failure = links_.failure(key.program)) {
        error = *failure;
        return std::nullopt;
    }

    // 1. Memory.
    auto start = Clock::now();
    if (const ProgramBinary* binary = memory_.get(key.program)) {
        if (auto program = load_binary(*binary)) {
            ++stats_.loaded_from_memory;
            stats_.memory_hit_ms.add(ms_since(start));
            return renderer::ProgramResult{std::move(program), renderer::ProgramOrigin::memory};
        }
        ++stats_.binary_rejected;
        memory_.erase(key.program);
    }

    // 2. Disk tiers, fastest first; a hit is copied up into the faster tiers.
    if (context_known_) {
        const auto disk_key = full_key(key.program);
        for (DiskTier* tier : {user_.get(), system_.get()}) {
            if (!tier)
                continue;
            start = Clock::now();
            auto entry = tier->read(EntryKind::program, disk_key);
            if (!entry)
                continue;
            ProgramBinary binary{entry->binary_format, entry->payload, key.vertex, key.fragment};
            const double read_ms = ms_since(start);
            if (auto program = load_binary(binary)) {
                ++stats_.loaded_from_disk;
                stats_.disk_read_ms.add(read_ms);
                if (tier == system_.get()) {
                    ++stats_.loaded_from_system;
                    if (user_)
                        user_->write(*entry);
                }
                stats_.disk_hit_ms.add(ms_since(start));
                remember(key, std::move(binary));
                return renderer::ProgramResult{std::move(program), renderer::ProgramOrigin::disk};
            }
            // Intact on disk but refused by this driver: drop it and fall through to a compile.
            ++stats_.binary_rejected;
            tier->remove(EntryKind::program, disk_key);
        }
    }

    // 3. Compile and link, then store in every writable tier.
    return compile(key, source, error);
}

std::optional<renderer::ProgramResult> TieredProgramCache::compile(const ProgramKey& key,
                                                                   const renderer::ProgramSource& source,
                                                                   std::string& error)
{
    auto shader = [&](const Sha1& shader_key, GLenum type, const std::string& text) -> GLuint {
        if (GLuint existing = shaders_.find(shader_key)) {
            ++stats_.shaders_reused;
            return existing;
        }
        const auto start = Clock::now();
        GLuint compiled = renderer::compile_shader(type, text, error);
        if (compiled) {
            ++stats_.shaders_compiled;
            stats_.compile_ms.add(ms_since(start));
            shaders_.store(shader_key, compiled);
        }
        return compiled;
    };
    const GLuint vs = shader(key.vertex, GL_VERTEX_SHADER, source.vertex);
    const GLuint fs = vs ? shader(key.fragment, GL_FRAGMENT_SHADER, source.fragment) : 0;
    if (!vs || !fs) {
        links_.set_failed(key.program, error);
        return std::nullopt;
    }

    const auto start = Clock::now();
    renderer::Program program(glCreateProgram());
    glAttachShader(program.id(), vs);
    glAttachShader(program.id(), fs);
    for (const auto& binding : source.attributes)
        glBindAttribLocation(program.id(), binding.location, binding.name.c_str());
    // Mesa only returns binaries for programs that asked to be retrievable.
    glProgramParameteri(program.id(), GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
    glLinkProgram(program.id());
    glDetachShader(program.id(), vs);
    glDetachShader(program.id(), fs);
    GLint linked = GL_FALSE;
    glGetProgramiv(program.id(), GL_LINK_STATUS, &linked);
    if (linked != GL_TRUE) {
        GLint length = 0;
        glGetProgramiv(program.id(), GL_INFO_LOG_LENGTH, &length);
        std::string log(static_cast<size_t>(length > 1 ? length : 1), '\0');
        glGetProgramInfoLog(program.id(), length, nullptr, log.data());
        error = "link '" + source.name + "': " + log;
        links_.set_failed(key.program, error);
        return std::nullopt;
    }
    stats_.miss_link_ms.add(ms_since(start));
    ++stats_.linked_from_source;
    links_.set_linked(key.program);

    GLint length = 0;
    glGetProgramiv(program.id(), GL_PROGRAM_BINARY_LENGTH, &length);
    if (length > 0) {
        ProgramBinary binary;
        binary.bytes.resize(static_cast<size_t>(length));
        binary.vertex = key.vertex;
        binary.fragment = key.fragment;
        GLsizei written = 0;
        glGetProgramBinary(program.id(), length, &written, &binary.format, binary.bytes.data());
        binary.bytes.resize(static_cast<size_t>(written));
        stats_.binary_bytes.add(static_cast<double>(written));
        if (written > 0) {
            if (user_ && context_known_)
                user_->write(Entry{EntryKind::program, full_key(key.program), binary.format, binary.bytes});
            remember(key, std::move(binary));
        }
    }
    return renderer::ProgramResult{std::move(program), renderer::ProgramOrigin::compiled};
}

bool TieredProgramCache::listed(const renderer::ProgramSource& source) const
{
    return precompile_.contains(program_key(source).program);
}

std::vector<std::string> TieredProgramCache::listed_names() const
{
    std::vector<std::string> out;
    for (const auto& listed : precompile_.entries())
        out.push_back(listed.name);
    return out;
}

void TieredProgramCache::flush()
{
    if (user_) {
        user_->flush();
        std::string why;
        std::string refused;
        const bool saved = precompile_.save(why, refused);
        const std::string path = (user_->directory() / "precompile.list").string();
        if (!refused.empty())
            log("program cache: " + (user_->directory() / refused).string());
        // Every flush retries, but the cause is told once: the compositor and the cache both flush on the way out.
        if (!saved && !precompile_save_warned_) {
            precompile_save_warned_ = true;
            log("program cache: cannot save " + path + ": " + why);
        }
    }
}

void TieredProgramCache::clear_memory()
{
    memory_.clear();
    shaders_.clear();
    links_.clear();
}

void TieredProgramCache::wait_for_disk_load()
{
    if (user_)
        user_->wait_ready();
    if (system_)
        system_->wait_ready();
}

double TieredProgramCache::disk_load_ms() const
{
    return (user_ ? user_->stats().load_ms.load() : 0.0) + (system_ ? system_->stats().load_ms.load() : 0.0);
}

uint64_t TieredProgramCache::disk_discarded() const
{
    return (user_ ? user_->stats().discarded.load() : 0) + (system_ ? system_->stats().discarded.load() : 0);
}

void TieredProgramCache::store_blob_locked(std::vector<uint8_t> key, std::vector<uint8_t> value)
{
    // Bounded: past the budget new blobs still reach disk, just not memory.
    if (blob_bytes_ + value.size() > options_.blob_memory_budget)
        return;
    blob_bytes_ += value.size();
    blobs_[std::move(key)] = std::move(value);
}

size_t TieredProgramCache::blob_get(std::span<const uint8_t> key, std::span<uint8_t> out)
{
    const auto disk_key = full_key(key);
    std::lock_guard lock(blob_mutex_);
    auto it = blobs_.find(disk_key);
    if (it == blobs_.end()) {
        // Not preloaded (yet): open the entry by name rather than wait for the index.
        for (DiskTier* tier : {user_.get(), system_.get()})
            if (tier)
                if (auto entry = tier->read(EntryKind::blob, disk_key)) {
                    store_blob_locked(disk_key, std::move(entry->payload));
                    it = blobs_.find(disk_key);
                    break;
                }
    }
    if (it == blobs_.end()) {
        ++stats_.blob_misses;
        return 0;
    }
    if (out.size() >= it->second.size()) {
        std::copy(it->second.begin(), it->second.end(), out.begin());
        ++stats_.blob_hits;
    }
    return it->second.size();
}

void TieredProgramCache::blob_set(std::span<const uint8_t> key, std::span<const uint8_t> value)
{
    auto disk_key = full_key(key);
    std::vector<uint8_t> bytes(value.begin(), value.end());
    {
        std::lock_guard lock(blob_mutex_);
        if (auto it = blobs_.find(disk_key); it != blobs_.end() && it->second == bytes)
            return;
        ++stats_.blob_stores;
        store_blob_locked(disk_key, bytes);
    }
    if (user_)
        user_->write(Entry{EntryKind::blob, std::move(disk_key), 0, std::move(bytes)});
}

}  // namespace kiln::cache
