#include "CImageCodecs.h"
#include <stdio.h>
#include <png.h>
#include <jpeglib.h>

const char *presence_libpng_version(void) { return png_get_libpng_ver(NULL); }
int presence_libjpeg_version(void) { return JPEG_LIB_VERSION; }
