#ifndef PRESENCE_CIMAGECODECS_H
#define PRESENCE_CIMAGECODECS_H

#include <stddef.h>
#include <stdint.h>

/// The libpng version string this build links against.
const char *presence_libpng_version(void);
/// The libjpeg(-turbo) version this build was compiled against, as JPEG_LIB_VERSION.
int presence_libjpeg_version(void);

#endif
