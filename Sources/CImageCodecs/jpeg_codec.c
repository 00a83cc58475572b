#include "CImageCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

// ---- error handling: libjpeg calls exit() by default; we longjmp back with a code -----------

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    presence_codec_status *status;
} jpeg_error_context;

typedef struct {
    struct jpeg_progress_mgr pub;
    jpeg_error_context *errors;
    uint32_t max_scans;
} jpeg_scan_guard;

/// More corrupt-data warnings than this and the file is called corrupt: a hostile file can
/// otherwise make libjpeg emit a warning per MCU and take a very long time.
static const int maximum_jpeg_warnings = 1000;

static void fail(jpeg_error_context *context, presence_codec_code code, const char *message) {
    context->status->code = code;
    snprintf(context->status->message, sizeof context->status->message, "%s", message);
    longjmp(context->jump, 1);
}

static presence_codec_code classify_jpeg_error(int code) {
    switch (code) {
    case JERR_INPUT_EMPTY:
    case JERR_INPUT_EOF:
        return PRESENCE_CODEC_TRUNCATED;
    case JERR_BAD_PRECISION:
    case JERR_NOT_COMPILED:
    case JERR_SOF_UNSUPPORTED:
    case JERR_ARITH_NOTIMPL:
    case JERR_NOTIMPL:
        return PRESENCE_CODEC_UNSUPPORTED;
    case JERR_OUT_OF_MEMORY:
        return PRESENCE_CODEC_NO_MEMORY;
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
        return PRESENCE_CODEC_LIMIT;
    default:
        return PRESENCE_CODEC_CORRUPT;
    }
}

static void jpeg_error_exit(j_common_ptr cinfo) {
    jpeg_error_context *context = (jpeg_error_context *)cinfo->err;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    fail(context, classify_jpeg_error(cinfo->err->msg_code), message);
}

static void jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  // trace messages
    jpeg_error_context *context = (jpeg_error_context *)cinfo->err;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
        // libjpeg would pad the rest with grey and call it an image: that is a truncated file.
        fail(context, PRESENCE_CODEC_TRUNCATED, "Premature end of JPEG file");
    }
    context->status->warning_count += 1;
    if (context->status->warning_count > maximum_jpeg_warnings) {
        char message[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, message);
        fail(context, PRESENCE_CODEC_CORRUPT, message);
    }
}

static void jpeg_count_scans(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    jpeg_scan_guard *guard = (jpeg_scan_guard *)cinfo->progress;
    j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
    if (guard->max_scans && decompress->input_scan_number > (int)guard->max_scans) {
        char message[120];
        snprintf(message, sizeof message, "more than %u progressive scans", guard->max_scans);
        fail(guard->errors, PRESENCE_CODEC_LIMIT, message);
    }
}

// ---- EXIF orientation ------------------------------------------------------------------------

static unsigned read16(const uint8_t *p, int little) { return little ? (p[0] | p[1] << 8) : (p[0] << 8 | p[1]); }
static uint32_t read32(const uint8_t *p, int little) {
    return little ? ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24)
                  : ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3]);
}

/// The orientation tag (0x0112) of IFD0 in an APP1 "Exif" payload, or 0. Every offset is bounds-checked.
static int exif_orientation(const uint8_t *data, size_t size) {
    if (size < 14 || memcmp(data, "Exif\0\0", 6) != 0) return 0;
    const uint8_t *tiff = data + 6;
    size_t length = size - 6;
    int little;
    if (tiff[0] == 'I' && tiff[1] == 'I') little = 1;
    else if (tiff[0] == 'M' && tiff[1] == 'M') little = 0;
    else return 0;
    if (read16(tiff + 2, little) != 42) return 0;
    uint32_t ifd = read32(tiff + 4, little);
    if (ifd > length || length - ifd < 2) return 0;
    unsigned entries = read16(tiff + ifd, little);
    for (unsigned i = 0; i < entries; i++) {
        size_t entry = (size_t)ifd + 2 + (size_t)i * 12;
        if (entry + 12 > length) return 0;
        if (read16(tiff + entry, little) == 0x0112) {
            unsigned value = read16(tiff + entry + 8, little);
            return (value >= 1 && value <= 8) ? (int)value : 0;
        }
    }
    return 0;
}

// ---- decoding ------------------------------------------------------------------------------

static void begin_decompress(struct jpeg_decompress_struct *cinfo, jpeg_error_context *errors, jpeg_scan_guard *guard,
                             const presence_decode_limits *limits, const uint8_t *data, size_t size) {
    jpeg_create_decompress(cinfo);
    guard->pub.progress_monitor = jpeg_count_scans;
    guard->errors = errors;
    guard->max_scans = limits->max_progressive_scans;
    cinfo->progress = &guard->pub;
    jpeg_mem_src(cinfo, data, (unsigned long)size);
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(cinfo, TRUE);
}

static void describe(struct jpeg_decompress_struct *cinfo, presence_image_info *info) {
    memset(info, 0, sizeof *info);
    info->width = cinfo->image_width;
    info->height = cinfo->image_height;
    info->bit_depth = cinfo->data_precision;
    info->color_type = cinfo->num_components;
    info->interlaced = jpeg_has_multiple_scans(cinfo);
    info->jpeg_color_space = cinfo->jpeg_color_space;
    info->adobe_inverted = cinfo->saw_Adobe_marker;
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1) {
            int orientation = exif_orientation(marker->data, marker->data_length);
            if (orientation) {
                info->orientation = orientation;
                break;
            }
        }
    }
}

static void check_limits(jpeg_error_context *errors, const presence_image_info *info, const presence_decode_limits *limits) {
    if ((limits->max_width && info->width > limits->max_width) || (limits->max_height && info->height > limits->max_height) ||
        (limits->max_pixels && (uint64_t)info->width * info->height > limits->max_pixels)) {
        fail(errors, PRESENCE_CODEC_LIMIT, "image dimensions exceed the decoding limits");
    }
}

static void configure_output(struct jpeg_decompress_struct *cinfo, int scale_denom) {
    cinfo->scale_num = 1;
    cinfo->scale_denom = (scale_denom == 2 || scale_denom == 4 || scale_denom == 8) ? scale_denom : 1;
    if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) {
        cinfo->out_color_space = JCS_CMYK;
    } else {
        cinfo->out_color_space = JCS_EXT_RGBA;
    }
}

int presence_jpeg_info(const uint8_t *data, size_t size, const presence_decode_limits *limits, int scale_denom,
                       presence_image_info *info, uint32_t *out_width, uint32_t *out_height,
                       presence_codec_status *status) {
    memset(status, 0, sizeof *status);
    struct jpeg_decompress_struct cinfo;
    jpeg_error_context errors;
    jpeg_scan_guard guard;
    cinfo.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = jpeg_error_exit;
    errors.pub.emit_message = jpeg_emit_message;
    errors.status = status;
    if (setjmp(errors.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return status->code;
    }
    begin_decompress(&cinfo, &errors, &guard, limits, data, size);
    describe(&cinfo, info);
    configure_output(&cinfo, scale_denom);
    jpeg_calc_output_dimensions(&cinfo);
    *out_width = cinfo.output_width;
    *out_height = cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    return PRESENCE_CODEC_OK;
}

static void cmyk_to_rgba(const uint8_t *cmyk, uint8_t *rgba, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++) {
        unsigned c = cmyk[x * 4], m = cmyk[x * 4 + 1], y = cmyk[x * 4 + 2], k = cmyk[x * 4 + 3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        // Adobe writes inverted CMYK: the stored values are already 255 - ink.
        rgba[x * 4] = (uint8_t)((c * k + 127) / 255);
        rgba[x * 4 + 1] = (uint8_t)((m * k + 127) / 255);
        rgba[x * 4 + 2] = (uint8_t)((y * k + 127) / 255);
        rgba[x * 4 + 3] = 255;
    }
}

int presence_jpeg_decode(const uint8_t *data, size_t size, const presence_decode_limits *limits, int scale_denom,
                         uint8_t *out, size_t stride, uint32_t rows_available, presence_image_info *info,
                         presence_codec_status *status) {
    memset(status, 0, sizeof *status);
    struct jpeg_decompress_struct cinfo;
    jpeg_error_context errors;
    jpeg_scan_guard guard;
    uint8_t *volatile cmyk_rows = NULL;
    cinfo.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = jpeg_error_exit;
    errors.pub.emit_message = jpeg_emit_message;
    errors.status = status;
    if (setjmp(errors.jump)) {
        free(cmyk_rows);
        jpeg_destroy_decompress(&cinfo);
        return status->code;
    }
    begin_decompress(&cinfo, &errors, &guard, limits, data, size);
    describe(&cinfo, info);
    check_limits(&errors, info, limits);
    configure_output(&cinfo, scale_denom);
    jpeg_start_decompress(&cinfo);
    if (stride < (size_t)cinfo.output_width * 4 || cinfo.output_height > rows_available)
        fail(&errors, PRESENCE_CODEC_INVALID_ARGUMENT, "decoded size does not fit the output buffer");

    const int is_cmyk = cinfo.out_color_space == JCS_CMYK;
    enum { batch = 8 };
    JSAMPROW rows[batch];
    if (is_cmyk) {
        cmyk_rows = malloc((size_t)cinfo.output_width * 4 * batch);
        if (!cmyk_rows) fail(&errors, PRESENCE_CODEC_NO_MEMORY, "out of memory for CMYK rows");
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JDIMENSION first = cinfo.output_scanline;
        int wanted = (int)(cinfo.output_height - first) < batch ? (int)(cinfo.output_height - first) : batch;
        for (int i = 0; i < wanted; i++) {
            rows[i] = is_cmyk ? cmyk_rows + (size_t)i * cinfo.output_width * 4 : out + (size_t)(first + i) * stride;
        }
        JDIMENSION read = jpeg_read_scanlines(&cinfo, rows, (JDIMENSION)wanted);
        if (read == 0) fail(&errors, PRESENCE_CODEC_TRUNCATED, "no scanlines could be read");
        if (is_cmyk) {
            for (JDIMENSION i = 0; i < read; i++) {
                cmyk_to_rgba(cmyk_rows + (size_t)i * cinfo.output_width * 4, out + (size_t)(first + i) * stride,
                             cinfo.output_width, cinfo.saw_Adobe_marker);
            }
        }
    }
    jpeg_finish_decompress(&cinfo);
    free(cmyk_rows);
    jpeg_destroy_decompress(&cinfo);
    return PRESENCE_CODEC_OK;
}

// ---- encoding ------------------------------------------------------------------------------

int presence_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int quality,
                         int progressive, uint8_t **out, size_t *out_size, presence_codec_status *status) {
    memset(status, 0, sizeof *status);
    if (!rgba || !width || !height || stride < (size_t)width * 4) {
        status->code = PRESENCE_CODEC_INVALID_ARGUMENT;
        snprintf(status->message, sizeof status->message, "bad image for JPEG encoding");
        return status->code;
    }
    struct jpeg_compress_struct cinfo;
    jpeg_error_context errors;
    unsigned char *volatile buffer = NULL;
    unsigned long buffer_size = 0;
    cinfo.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = jpeg_error_exit;
    errors.pub.emit_message = jpeg_emit_message;
    errors.status = status;
    if (setjmp(errors.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return status->code;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&buffer, &buffer_size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality < 1 ? 1 : (quality > 100 ? 100 : quality), TRUE);
    cinfo.optimize_coding = TRUE;
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgba + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_size = buffer_size;
    return PRESENCE_CODEC_OK;
}

int presence_libjpeg_version(void) { return JPEG_LIB_VERSION; }
