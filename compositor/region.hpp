// Region: a pixman_region32_t that initialises and frees itself, for damage arithmetic (the frame pipeline, the
// bridge's cursors, views and capture): a plain type every room may include.
#pragma once

#include <pixman.h>

#include <span>

namespace kiln::compositor {

class Region {
public:
    Region() { pixman_region32_init(&region_); }
    Region(int x, int y, int width, int height) { pixman_region32_init_rect(&region_, x, y, width, height); }
    Region(const Region& other) : Region() { pixman_region32_copy(&region_, &other.region_); }
    Region& operator=(const Region& other)
    {
        pixman_region32_copy(&region_, &other.region_);
        return *this;
    }
    // A region is its extents and a pointer to its boxes: moved by taking both, the source left empty (no copy of the
    // boxes, no allocation).
    Region(Region&& other) noexcept : region_(other.region_) { pixman_region32_init(&other.region_); }
    Region& operator=(Region&& other) noexcept
    {
        if (this != &other) {
            pixman_region32_fini(&region_);
            region_ = other.region_;
            pixman_region32_init(&other.region_);
        }
        return *this;
    }
    ~Region() { pixman_region32_fini(&region_); }

    pixman_region32_t* get() { return &region_; }
    const pixman_region32_t* get() const { return &region_; }
    bool empty() const { return !pixman_region32_not_empty(&region_); }
    void clear() { pixman_region32_clear(&region_); }
    void add(const pixman_region32_t* other) { pixman_region32_union(&region_, &region_, other); }
    void add(const Region& other) { add(other.get()); }
    void subtract(const Region& other) { pixman_region32_subtract(&region_, &region_, other.get()); }
    void intersect(const Region& other) { pixman_region32_intersect(&region_, &region_, other.get()); }
    void intersect_rect(int x, int y, int width, int height)
    {
        pixman_region32_intersect_rect(&region_, &region_, x, y, static_cast<unsigned>(width),
                                       static_cast<unsigned>(height));
    }
    void translate(int dx, int dy) { pixman_region32_translate(&region_, dx, dy); }
    std::span<const pixman_box32_t> rects() const
    {
        int count = 0;
        const pixman_box32_t* boxes = pixman_region32_rectangles(const_cast<pixman_region32_t*>(&region_), &count);
        return {boxes, static_cast<size_t>(count)};
    }
    uint64_t area() const
    {
        uint64_t total = 0;
        for (const auto& box : rects())
            total += static_cast<uint64_t>(box.x2 - box.x1) * static_cast<uint64_t>(box.y2 - box.y1);
        return total;
    }

private:
    pixman_region32_t region_;
};

}  // namespace kiln::compositor
