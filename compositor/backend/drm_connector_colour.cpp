// DrmConnectorColour: the connector's properties found by name with libdrm, set with drmModeObjectSetProperty (the
// kernel commits a property set outside an atomic request as an atomic commit of its own, modeset allowed).
#include "compositor/backend/drm_connector_colour.hpp"

#include "compositor/log.hpp"
#include "compositor/wlr.hpp"

#include <cerrno>
#include <cstring>
#include <xf86drm.h>
#include <xf86drmMode.h>

namespace kiln::compositor {

DrmConnectorColour::DrmConnectorColour(wlr_output* output) : output_(output)
{
    if (!wlr_output_is_drm(output))
        return;
    fd_ = wlr_backend_get_drm_fd(output->backend);
    connector_ = wlr_drm_connector_get_id(output);
    if (fd_ < 0 || !connector_) {
        fd_ = -1;
        return;
    }
    drmModeObjectProperties* properties = drmModeObjectGetProperties(fd_, connector_, DRM_MODE_OBJECT_CONNECTOR);
    if (!properties)
        return;
    for (uint32_t i = 0; i < properties->count_props; ++i) {
        drmModePropertyRes* property = drmModeGetProperty(fd_, properties->props[i]);
        if (!property)
            continue;
        if (std::strcmp(property->name, "HDR_OUTPUT_METADATA") == 0) {
            metadata_.id = property->prop_id;
        } else if (std::strcmp(property->name, "Colorspace") == 0) {
            colorspace_.id = property->prop_id;
            for (int e = 0; e < property->count_enums; ++e) {
                if (std::strcmp(property->enums[e].name, "BT2020_RGB") == 0) {
                    colorspace_.bt2020 = property->enums[e].value;
                    colorspace_.has_bt2020 = true;
                } else if (std::strcmp(property->enums[e].name, "Default") == 0) {
                    colorspace_.standard = property->enums[e].value;
                }
            }
        }
        drmModeFreeProperty(property);
    }
    drmModeFreeObjectProperties(properties);
    log::info("output %s: connector %u has %s HDR_OUTPUT_METADATA and %s Colorspace", output->name, connector_,
              metadata_.id ? "a" : "no", colorspace_.id ? "a" : "no");
}

DrmConnectorColour::~DrmConnectorColour()
{
    if (blob_)
        drmModeDestroyPropertyBlob(fd_, blob_);
}

bool DrmConnectorColour::set(uint32_t property, uint64_t value, const char* what)
{
    if (drmModeObjectSetProperty(fd_, connector_, DRM_MODE_OBJECT_CONNECTOR, property, value) == 0)
        return true;
    log::error("output %s: the kernel refused %s on connector %u: %s", output_->name, what, connector_,
               std::strerror(errno));
    return false;
}

void DrmConnectorColour::apply(const renderer::ImageDescription* description)
{
    if (fd_ < 0)
        return;
    static const renderer::ImageDescription srgb{};
    const renderer::ImageDescription& d = description ? *description : srgb;
    const std::optional<HdrOutputMetadata> metadata = hdr_output_metadata(d);
    const std::string colorspace(connector_colorspace(d));
    if (last_metadata_ && *last_metadata_ == metadata && last_colorspace_ == colorspace)
        return;
    last_metadata_ = metadata;
    last_colorspace_ = colorspace;
    if (!metadata && !signalled_hdr_)
        return;  // SDR, and kiln never told the connector otherwise: leave it as the kernel has it

    bool sent = false;
    if (!metadata_.id) {
        if (metadata && !warned_metadata_)
            log::error("no HDR_OUTPUT_METADATA on connector %s (id %u): the driver does not offer it, so the "
                       "display is not told about HDR", output_->name, connector_);
        warned_metadata_ = warned_metadata_ || metadata;
    } else if (metadata) {
        sent = true;
        uint32_t blob = 0;
        if (drmModeCreatePropertyBlob(fd_, metadata->data(), metadata->size(), &blob) != 0) {
            log::error("output %s: cannot make the HDR_OUTPUT_METADATA blob: %s", output_->name, std::strerror(errno));
            sent = false;
        } else if (set(metadata_.id, blob, "HDR_OUTPUT_METADATA")) {
            if (blob_)
                drmModeDestroyPropertyBlob(fd_, blob_);
            blob_ = blob;
            signalled_hdr_ = true;
        } else {
            drmModeDestroyPropertyBlob(fd_, blob);
            sent = false;
        }
    } else if (set(metadata_.id, 0, "clearing HDR_OUTPUT_METADATA")) {
        if (blob_)
            drmModeDestroyPropertyBlob(fd_, blob_);
        blob_ = 0;
    }

    const bool bt2020 = colorspace == "BT2020_RGB";
    if (!colorspace_.id || (bt2020 && !colorspace_.has_bt2020)) {
        if (bt2020 && !warned_colorspace_)
            log::error("no %s on connector %s (id %u): the display is not told about BT.2020",
                       colorspace_.id ? "BT2020_RGB value of Colorspace" : "Colorspace", output_->name, connector_);
        warned_colorspace_ = warned_colorspace_ || bt2020;
    } else if (set(colorspace_.id, bt2020 ? colorspace_.bt2020 : colorspace_.standard,
                   bt2020 ? "Colorspace BT2020_RGB" : "Colorspace Default")) {
        signalled_hdr_ = signalled_hdr_ || bt2020;
    }
    if (sent)
        log::notice("output %s: HDR signalled on connector %u (%s, Colorspace %s)", output_->name, connector_,
                    d.transfer == renderer::TransferFunction::hlg ? "HLG" : "SMPTE ST 2084",
                    colorspace_.id ? colorspace.c_str() : "not set");
}

}  // namespace kiln::compositor
