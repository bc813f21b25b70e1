// Shader object lifetime under the status cache.
#include "renderer/cache/status_cache.hpp"

#include <GLES3/gl3.h>

namespace kiln::cache {

ShaderStatusCache::~ShaderStatusCache()
{
    clear();
}

GLuint ShaderStatusCache::find(const Sha1& key) const
{
    auto it = shaders_.find(key);
    return it == shaders_.end() ? 0 : it->second.shader;
}

void ShaderStatusCache::store(const Sha1& key, GLuint shader)
{
    auto& entry = shaders_[key];
    if (entry.shader && entry.shader != shader)
        glDeleteShader(entry.shader);
    entry.shader = shader;
}

void ShaderStatusCache::add_ref(const Sha1& key)
{
    auto it = shaders_.find(key);
    if (it != shaders_.end())
        ++it->second.refs;
}

void ShaderStatusCache::release(const Sha1& key)
{
    auto it = shaders_.find(key);
    if (it == shaders_.end())
        return;
    if (--it->second.refs <= 0) {
        glDeleteShader(it->second.shader);
        shaders_.erase(it);
    }
}

int ShaderStatusCache::refs(const Sha1& key) const
{
    auto it = shaders_.find(key);
    return it == shaders_.end() ? 0 : it->second.refs;
}

void ShaderStatusCache::clear()
{
    for (auto& [key, entry] : shaders_)
        if (entry.shader)
            glDeleteShader(entry.shader);
    shaders_.clear();
}

}  // namespace kiln::cache
