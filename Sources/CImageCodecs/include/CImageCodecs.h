#ifndef PRESENCE_CIMAGECODECS_H
#define PRESENCE_CIMAGECODECS_H

// C shims over libpng and libjpeg-turbo. libpng reports errors by longjmp and libjpeg by calling
// exit() unless told otherwise; every function here installs its own error manager and returns a
// code with a message instead. No input may crash or end the process.

#include <stddef.h>
#include <stdint.h>

/// Result codes of every shim call.
typedef enum {
    PRESENCE_CODEC_OK = 0,
    /// The data ended before the image did.
    PRESENCE_CODEC_TRUNCATED = 1,
    /// The data is not a valid image of its format (bad CRC, bad marker, bad header...).
    PRESENCE_CODEC_CORRUPT = 2,
    /// A decoding limit (size, scans, chunks) was exceeded.
    PRESENCE_CODEC_LIMIT = 3,
    /// A valid file using a feature the library does not support (12-bit or lossless JPEG...).
    PRESENCE_CODEC_UNSUPPORTED = 4,
    /// Memory could not be allocated.
    PRESENCE_CODEC_NO_MEMORY = 5,
    /// Bad arguments from the caller.
    PRESENCE_CODEC_INVALID_ARGUMENT = 6,
} presence_codec_code;

typedef struct {
    presence_codec_code code;
    /// The library's message (NUL-terminated).
    char message[200];
    /// Warnings the library emitted (ancillary CRC errors, corrupt-data warnings...).
    int warning_count;
} presence_codec_status;

typedef struct {
    uint32_t max_width;
    uint32_t max_height;
    uint64_t max_pixels;
    /// JPEG: most scans a progressive file may have (the scan-count attack). 0 = no limit.
    uint32_t max_progressive_scans;
    /// PNG: most ancillary chunks kept (png_set_chunk_cache_max). 0 = no limit.
    uint32_t max_ancillary_chunks;
    /// PNG: largest chunk, in bytes, that libpng will allocate (png_set_chunk_malloc_max).
    uint32_t max_chunk_bytes;
} presence_decode_limits;

typedef struct {
    uint32_t width;
    uint32_t height;
    int has_alpha;
    int bit_depth;
    /// PNG: colour type (0, 2, 3, 4, 6). JPEG: number of components.
    int color_type;
    /// PNG: Adam7 interlaced. JPEG: progressive.
    int interlaced;
    /// JPEG: EXIF orientation 1..8, or 0 when absent.
    int orientation;
    /// JPEG: libjpeg's J_COLOR_SPACE of the file.
    int jpeg_color_space;
    /// JPEG: whether an Adobe APP14 marker says CMYK values are inverted.
    int adobe_inverted;
} presence_image_info;

/// Reads a PNG's header chunks (up to the first IDAT) without decoding pixels.
int presence_png_info(const uint8_t *data, size_t size, const presence_decode_limits *limits,
                      presence_image_info *info, presence_codec_status *status);

/// Decodes a PNG to straight (not premultiplied) RGBA8 into `out`, which holds `rows` rows of
/// `stride` bytes; an image that would not fit is refused. Checks every CRC and reads through
/// IEND, so truncation is an error.
int presence_png_decode(const uint8_t *data, size_t size, const presence_decode_limits *limits,
                        uint8_t *out, size_t stride, uint32_t rows, presence_image_info *info,
                        presence_codec_status *status);

/// Reads a JPEG's header. `scale_denom` (1, 2, 4 or 8) gives the output size in `out_width` and
/// `out_height` for a DCT-domain scaled decode.
int presence_jpeg_info(const uint8_t *data, size_t size, const presence_decode_limits *limits, int scale_denom,
                       presence_image_info *info, uint32_t *out_width, uint32_t *out_height,
                       presence_codec_status *status);

/// Decodes a JPEG at 1/`scale_denom` scale to opaque RGBA8 into `out`, which holds `rows` rows of
/// `stride` bytes (the scaled size is ceil(width / scale_denom) × ceil(height / scale_denom));
/// output that would not fit is refused. CMYK and YCCK are converted to RGB. EXIF orientation is
/// reported, not applied. "Premature end of JPEG file" is reported as truncation.
int presence_jpeg_decode(const uint8_t *data, size_t size, const presence_decode_limits *limits, int scale_denom,
                         uint8_t *out, size_t stride, uint32_t rows, presence_image_info *info,
                         presence_codec_status *status);

/// Encodes RGBA8 as PNG (RGBA when `keep_alpha`, else RGB) at zlib `level` 0...9. On success
/// `*out` is a malloc'ed buffer the caller frees with presence_codec_free.
int presence_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int keep_alpha,
                        int level, uint8_t **out, size_t *out_size, presence_codec_status *status);

/// Encodes RGBA8 (alpha ignored) as baseline or progressive JPEG at `quality` 1...100.
int presence_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int quality,
                         int progressive, uint8_t **out, size_t *out_size, presence_codec_status *status);

/// Frees a buffer returned by an encoder.
void presence_codec_free(void *pointer);

/// The libpng version string this build links against.
const char *presence_libpng_version(void);
/// The libjpeg(-turbo) API version this build was compiled against (JPEG_LIB_VERSION).
int presence_libjpeg_version(void);

#endif
