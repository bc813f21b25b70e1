// Writes kiln's statistics as nested JSON, atomically (temp file + rename).
#include "compositor/stats.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kiln::compositor {
namespace {

struct Node {
    std::map<std::string, Node> children;
    const Stats::Value* value = nullptr;
};

void escape(std::ostringstream& out, const std::string& text)
{
    out << '"';
    for (char c : text) {
        switch (c) {
        case '"': out << "\\\""; break;
        case '\\': out << "\\\\"; break;
        case '\n': out << "\\n"; break;
        case '\t': out << "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out << buf;
            } else {
                out << c;
            }
        }
    }
    out << '"';
}

void write_value(std::ostringstream& out, const Stats::Value& value)
{
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
                escape(out, v);
            } else if constexpr (std::is_same_v<T, double>) {
                if (std::isfinite(v)) {
                    char buf[32];
                    std::snprintf(buf, sizeof buf, "%.3f", v);
                    out << buf;
                } else {
                    out << "null";
                }
            } else {
                out << v;
            }
        },
        value);
}

void write_node(std::ostringstream& out, const Node& node, int depth)
{
    if (node.value && node.children.empty()) {
        write_value(out, *node.value);
        return;
    }
    out << "{\n";
    bool first = true;
    for (const auto& [name, child] : node.children) {
        if (!first)
            out << ",\n";
        first = false;
        out << std::string(static_cast<size_t>(depth + 1) * 2, ' ');
        escape(out, name);
        out << ": ";
        write_node(out, child, depth + 1);
    }
    out << "\n" << std::string(static_cast<size_t>(depth) * 2, ' ') << "}";
}

}  // namespace

void Stats::mark_once(const std::string& key)
{
    if (!values_.contains(key))
        values_[key] = ms_since_start();
}

std::string Stats::to_json()
{
    for (auto& provider : providers_)
        provider(*this);
    Node root;
    for (const auto& [key, value] : values_) {
        Node* node = &root;
        size_t begin = 0;
        while (true) {
            const size_t dot = key.find('.', begin);
            node = &node->children[key.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin)];
            if (dot == std::string::npos)
                break;
            begin = dot + 1;
        }
        node->value = &value;
    }
    std::ostringstream out;
    write_node(out, root, 0);
    out << "\n";
    return out.str();
}

bool Stats::write(const std::string& path, std::string& error)
{
    const std::string json = to_json();
    const std::string temp = path + ".tmp";
    {
        std::ofstream file(temp, std::ios::trunc);
        if (!file) {
            error = "cannot write " + temp + ": " + std::strerror(errno);
            return false;
        }
        file << json;
        if (!file.flush()) {
            error = "cannot write " + temp + ": " + std::strerror(errno);
            return false;
        }
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        error = "cannot rename " + temp + " to " + path + ": " + std::strerror(errno);
        return false;
    }
    return true;
}

double median(std::vector<double> samples)
{
    if (samples.empty())
        return 0.0;
    const auto middle = samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2);
    std::nth_element(samples.begin(), middle, samples.end());
    return *middle;
}

double percentile(std::vector<double> samples, double p)
{
    if (samples.empty())
        return 0;
    std::sort(samples.begin(), samples.end());
    const size_t index = static_cast<size_t>(p * static_cast<double>(samples.size() - 1) + 0.5);
    return samples[std::min(index, samples.size() - 1)];
}

}  // namespace kiln::compositor
