/* lint: 9: open */
/* a different loop when a sanitizer is loaded: the mappings read through
 * open() and read() */
#include <fcntl.h>
#include <unistd.h>

int watched(void)
{
    int fd = open("/proc/self/maps", O_RDONLY);
    char buf[4096];
    long got = fd < 0 ? 0 : (long)read(fd, buf, sizeof buf);
    if (fd >= 0) close(fd);
    return got > 0;
}
