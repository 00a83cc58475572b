#ifndef PRESENCE_CZLIB_SHIM_H
#define PRESENCE_CZLIB_SHIM_H

#include <zlib.h>

// deflateInit2 is a macro; Swift cannot call it. windowBits 31 selects the gzip wrapper.
static inline int presence_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

#endif
