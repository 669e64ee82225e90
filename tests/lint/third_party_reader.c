/* lint: 7: png_image_begin_read_from_file */
/* a file read through a library the kit links for its frames (libpng):
 * the routes the system library's list closes, through another library */
#include <stddef.h>

typedef struct png_image_s png_image;
int png_image_begin_read_from_file(png_image *image, const char *file);

int peek(png_image *im)
{
    return png_image_begin_read_from_file(im, "/proc/self/maps");
}
