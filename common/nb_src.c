/* nb_src.c -- an input file opened once (see nb_io.h, "Input sources").
 *
 * A regular file has a size; anything else (a FIFO, a pipe, /dev/stdin, a
 * character device) is a stream, read once from the front.  The first 32
 * bytes are read ahead into head[] so that the TIPSY detection can look at
 * them without consuming them: the reader then gets them first. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "nb_error.h"
#include "nb_io.h"

static int fill_head(nb_src *s)
{
    s->head_len = fread(s->head, 1, sizeof s->head, s->f);
    s->head_pos = 0;
    if (ferror(s->f))
        return nb_fail(NB_EXIT_RUNTIME, "--ic: error reading '%s': %s", nb_short(s->path),
                       strerror(errno));
    return NB_OK;
}

int nb_src_open(nb_src *s, const char *path, const char *kind)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    struct stat st;
    if (stat(path, &st) != 0)
        return nb_fail(NB_EXIT_USAGE, "--ic: cannot open %s '%s': %s%s", kind, nb_short(path),
                       strerror(errno), errno == ENOENT ? " (not a model name: plummer, cube, disk, "
                       "collision)" : "");
    if (S_ISDIR(st.st_mode))
        return nb_fail(NB_EXIT_USAGE, "--ic: '%s' is a directory, not a %s", nb_short(path), kind);
    s->f = fopen(path, "rb");
    if (!s->f)
        return nb_fail(NB_EXIT_USAGE, "--ic: cannot open %s '%s': %s", kind, nb_short(path),
                       strerror(errno));
    if (fstat(fileno(s->f), &st) != 0 || S_ISDIR(st.st_mode)) {
        nb_src_close(s);
        return nb_fail(NB_EXIT_USAGE, "--ic: '%s' is not a readable %s", nb_short(path), kind);
    }
    s->regular = S_ISREG(st.st_mode);
    s->size = s->regular ? (int64_t)st.st_size : -1;
    int rc = fill_head(s);
    if (rc) nb_src_close(s);
    return rc;
}

int nb_src_from_file(nb_src *s, FILE *f, const char *name, int64_t size)
{
    memset(s, 0, sizeof *s);
    s->path = name;
    s->f = f;
    s->regular = size >= 0;
    s->size = size;
    return fill_head(s);
}

size_t nb_src_read(nb_src *s, void *buf, size_t n)
{
    unsigned char *b = buf;
    size_t got = 0;
    while (got < n && s->head_pos < s->head_len) b[got++] = s->head[s->head_pos++];
    if (got < n) got += fread(b + got, 1, n - got, s->f);
    return got;
}

int nb_src_getc(nb_src *s)
{
    if (s->head_pos < s->head_len) return s->head[s->head_pos++];
    return getc(s->f);
}

int nb_src_line(nb_src *s, char *buf, size_t cap, size_t *len)
{
    size_t k = 0;
    int c;
    while ((c = nb_src_getc(s)) != EOF && c != '\n') {
        if (c == '\0') { *len = k; buf[k < cap ? k : cap - 1] = '\0'; return NB_LINE_NUL; }
        if (k + 1 >= cap) { *len = k; buf[cap - 1] = '\0'; return NB_LINE_LONG; }
        buf[k++] = (char)c;
    }
    buf[k] = '\0';
    *len = k;
    if (c == EOF) return k == 0 ? NB_LINE_EOF : NB_LINE_NOEOL;
    return NB_LINE_OK;
}

int nb_src_error(const nb_src *s) { return s->f && ferror(s->f); }

void nb_src_close(nb_src *s)
{
    if (s->f) fclose(s->f);
    s->f = NULL;
}
