#include "CImageCodecs.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- error handling: libpng longjmps out of png_error; we record why first -----------------

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
    int ran_out;
    presence_codec_status *status;
    jmp_buf jump;
} png_reader;

static void set_status(presence_codec_status *status, presence_codec_code code, const char *message) {
    status->code = code;
    snprintf(status->message, sizeof status->message, "%s", message ? message : "");
}

static presence_codec_code classify_png_error(const char *message, int ran_out) {
    if (ran_out) return PRESENCE_CODEC_TRUNCATED;
    if (strstr(message, "exceeds user limit") || strstr(message, "too large") || strstr(message, "chunk cache"))
        return PRESENCE_CODEC_LIMIT;
    if (strstr(message, "Insufficient memory") || strstr(message, "Out of memory")) return PRESENCE_CODEC_NO_MEMORY;
    if (strstr(message, "Not enough image data") || strstr(message, "Read Error")) return PRESENCE_CODEC_TRUNCATED;
    return PRESENCE_CODEC_CORRUPT;
}

static void png_error_handler(png_structp png, png_const_charp message) {
    png_reader *reader = (png_reader *)png_get_error_ptr(png);
    set_status(reader->status, classify_png_error(message, reader->ran_out), message);
    longjmp(reader->jump, 1);
}

static void png_warning_handler(png_structp png, png_const_charp message) {
    (void)message;
    png_reader *reader = (png_reader *)png_get_error_ptr(png);
    reader->status->warning_count += 1;
}

static void png_read_from_memory(png_structp png, png_bytep out, size_t count) {
    png_reader *reader = (png_reader *)png_get_io_ptr(png);
    if (count > reader->size - reader->offset) {
        reader->ran_out = 1;
        png_error(png, "the file ends before the image does");
    }
    memcpy(out, reader->data + reader->offset, count);
    reader->offset += count;
}

static void apply_read_limits(png_structp png, const presence_decode_limits *limits) {
    if (limits->max_width && limits->max_height) png_set_user_limits(png, limits->max_width, limits->max_height);
    if (limits->max_ancillary_chunks) png_set_chunk_cache_max(png, limits->max_ancillary_chunks);
    if (limits->max_chunk_bytes) png_set_chunk_malloc_max(png, limits->max_chunk_bytes);
    // Critical chunk CRC errors are fatal; ancillary ones are dropped with a warning (libpng's default).
    png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_WARN_DISCARD);
}

static void fill_info(png_structp png, png_infop info, presence_image_info *out) {
    memset(out, 0, sizeof *out);
    out->width = png_get_image_width(png, info);
    out->height = png_get_image_height(png, info);
    out->bit_depth = png_get_bit_depth(png, info);
    out->color_type = png_get_color_type(png, info);
    out->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    out->has_alpha = (out->color_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
}

// The png structs are freed after longjmp too: they live in a struct the jump does not clobber.
typedef struct {
    png_structp png;
    png_infop info;
} png_handles;

static int begin_read(png_handles *handles, png_reader *reader, const presence_decode_limits *limits) {
    handles->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader, png_error_handler, png_warning_handler);
    if (!handles->png) {
        set_status(reader->status, PRESENCE_CODEC_NO_MEMORY, "png_create_read_struct failed");
        return 0;
    }
    handles->info = png_create_info_struct(handles->png);
    if (!handles->info) {
        png_destroy_read_struct(&handles->png, NULL, NULL);
        set_status(reader->status, PRESENCE_CODEC_NO_MEMORY, "png_create_info_struct failed");
        return 0;
    }
    png_set_read_fn(handles->png, reader, png_read_from_memory);
    apply_read_limits(handles->png, limits);
    return 1;
}

int presence_png_info(const uint8_t *data, size_t size, const presence_decode_limits *limits,
                      presence_image_info *info, presence_codec_status *status) {
    memset(status, 0, sizeof *status);
    png_reader reader = {data, size, 0, 0, status};
    png_handles handles = {NULL, NULL};
    if (!begin_read(&handles, &reader, limits)) return status->code;
    if (setjmp(reader.jump)) {
        png_destroy_read_struct(&handles.png, &handles.info, NULL);
        return status->code;
    }
    png_read_info(handles.png, handles.info);
    fill_info(handles.png, handles.info, info);
    png_destroy_read_struct(&handles.png, &handles.info, NULL);
    return PRESENCE_CODEC_OK;
}

int presence_png_decode(const uint8_t *data, size_t size, const presence_decode_limits *limits,
                        uint8_t *out, size_t stride, uint32_t rows_available, presence_image_info *info,
                        presence_codec_status *status) {
    memset(status, 0, sizeof *status);
    png_reader reader = {data, size, 0, 0, status};
    png_handles handles = {NULL, NULL};
    png_bytep *volatile rows = NULL;
    if (!begin_read(&handles, &reader, limits)) return status->code;
    if (setjmp(reader.jump)) {
        free(rows);
        png_destroy_read_struct(&handles.png, &handles.info, NULL);
        return status->code;
    }
    png_structp png = handles.png;
    png_read_info(png, handles.info);
    fill_info(png, handles.info, info);

    // Everything to 8-bit RGBA: palettes and low bit depths expanded, tRNS to alpha, 16-bit
    // scaled (rounded, not truncated), grey to RGB, opaque alpha added where there is none.
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, handles.info);
    if (png_get_rowbytes(png, handles.info) != (size_t)info->width * 4 || stride < (size_t)info->width * 4 ||
        info->height > rows_available) {
        png_error(png, "unexpected row layout after transforms");
    }
    rows = malloc(sizeof(png_bytep) * info->height);
    if (!rows) png_error(png, "Insufficient memory for row pointers");
    for (uint32_t y = 0; y < info->height; y++) rows[y] = out + (size_t)y * stride;
    png_read_image(png, rows);
    png_read_end(png, NULL);  // verifies the remaining chunks' CRCs and that IEND arrives
    free(rows);
    png_destroy_read_struct(&handles.png, &handles.info, NULL);
    return PRESENCE_CODEC_OK;
}

// ---- encoding into a growable memory buffer ------------------------------------------------

typedef struct {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
    int failed;
} memory_sink;

static void png_write_to_memory(png_structp png, png_bytep data, size_t count) {
    memory_sink *sink = (memory_sink *)png_get_io_ptr(png);
    if (sink->size + count > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity * 2 : 8192;
        while (capacity < sink->size + count) capacity *= 2;
        uint8_t *grown = realloc(sink->bytes, capacity);
        if (!grown) {
            sink->failed = 1;
            png_error(png, "Out of memory while encoding");
        }
        sink->bytes = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->bytes + sink->size, data, count);
    sink->size += count;
}

static void png_flush_nothing(png_structp png) { (void)png; }

int presence_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int keep_alpha,
                        int level, uint8_t **out, size_t *out_size, presence_codec_status *status) {
    memset(status, 0, sizeof *status);
    if (!rgba || !width || !height || stride < (size_t)width * 4) {
        set_status(status, PRESENCE_CODEC_INVALID_ARGUMENT, "bad image for PNG encoding");
        return status->code;
    }
    png_reader context = {NULL, 0, 0, 0, status};
    memory_sink sink = {NULL, 0, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, png_error_handler, png_warning_handler);
    if (!png) {
        set_status(status, PRESENCE_CODEC_NO_MEMORY, "png_create_write_struct failed");
        return status->code;
    }
    png_infop info = png_create_info_struct(png);
    uint8_t *volatile row = NULL;
    if (!info || setjmp(context.jump)) {
        if (!info) set_status(status, PRESENCE_CODEC_NO_MEMORY, "png_create_info_struct failed");
        free(row);
        free(sink.bytes);
        png_destroy_write_struct(&png, &info);
        return status->code;
    }
    png_set_write_fn(png, &sink, png_write_to_memory, png_flush_nothing);
    png_set_compression_level(png, level < 0 ? 6 : (level > 9 ? 9 : level));
    png_set_IHDR(png, info, width, height, 8, keep_alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (keep_alpha) {
        for (uint32_t y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(rgba + (size_t)y * stride));
    } else {
        row = malloc((size_t)width * 3);
        if (!row) png_error(png, "Out of memory while encoding");
        for (uint32_t y = 0; y < height; y++) {
            const uint8_t *source = rgba + (size_t)y * stride;
            for (uint32_t x = 0; x < width; x++) {
                row[x * 3] = source[x * 4];
                row[x * 3 + 1] = source[x * 4 + 1];
                row[x * 3 + 2] = source[x * 4 + 2];
            }
            png_write_row(png, row);
        }
        free(row);
        row = NULL;
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    *out = sink.bytes;
    *out_size = sink.size;
    return PRESENCE_CODEC_OK;
}

void presence_codec_free(void *pointer) { free(pointer); }

const char *presence_libpng_version(void) { return png_get_libpng_ver(NULL); }
