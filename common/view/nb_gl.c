/* nb_gl.c -- the OpenGL renderer (see nb_gl.h for what it draws and why).
 *
 * OpenGL 3.3 core, no function loader: glvnd's libOpenGL exports the core
 * functions (GL_GLEXT_PROTOTYPES with <GL/glcorearb.h>), for an EGL context
 * (nb_egl.c) and a GLFW/GLX one (nb_view.c) alike.
 *
 * The bodies' pass has two forms.  With OpenGL 4.3 (compute shaders and
 * shader storage buffers: NVIDIA's driver, Mesa's llvmpipe) a compute
 * shader adds each body into a buffer of 64-bit integer sums, a pair of
 * 32-bit words a pixel and channel, with atomicAdd and a carry: exact, so
 * the sums do not depend on the order the bodies come in, and the frame is
 * the same for the same positions on any path (a count is 1/256 of the
 * lightest mass, coarser only where the total mass would overflow a sum).
 * No rasterizer is involved: on the H100, whose graphics pipeline is small
 * beside its compute, a million bodies at 1920x1080 take 0.92 ms of GPU
 * time this way against 4.56 ms as point sprites (the same run of
 * scripts/gpu/gpu_view_check.sh, handouts/07_view.md).  The other form, the
 * bodies as point sprites added up by blending into a 32-bit float RGBA
 * texture (a 16-bit float has no value below 6e-8 and an 11-bit
 * mantissa: light bodies vanish, alone or in a heavy pixel), is used below 4.3, where the compute programs do not build,
 * where the bodies or the image's sums do not fit the largest storage
 * buffer a shader may read (Mesa: 128 MiB) or the GPU's memory, and with
 * NB_GL_SPRITES=1 (the tests keep that form honest); nb_gl_bodies_how()
 * says which drew, and why.  Either way the tree's edges go into an 8-bit
 * mask, and the resolve pass writes the 8-bit colour image: the window's
 * back buffer, or the renderer's own framebuffer for frames.  All are
 * sized on the first draw at w x h and again when w or h changes.
 *
 * The colour maps are lookup textures filled from nb_render_colour(), so
 * the density colours are the CPU splatter's and the legend's exactly. */
#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_gl.h"
#include "nb_verify.h"

struct nb_gl {
    int64_t n;
    GLuint  prog_points, prog_tree, prog_resolve, prog_rect;
    GLuint  vao_points, vao_tree, vao_empty, vao_rect;
    GLuint  buf_pm, buf_speed, buf_cube, buf_cells, buf_rect;
    int64_t cells_cap, cells_n;
    GLuint  lut_density, lut_attr;
    GLuint  tex_acc, tex_mask, fbo_acc, fbo_mask, rbo_out, fbo_out;
    int     w, h, out_w, out_h;
    float  *stage;                  /* host upload: 4 floats + 1 a body, or cells */
    size_t  stage_len;
    nb_annot annot;
    size_t  rect_cap;
    /* the compute form (splat != 0): the sums, planes of w*h pixel pairs
     * of words: weight, then red, green, blue times the weight */
    int     splat, splat_ok;        /* the form of this draw; whether the context has it */
    GLint64 ssbo_max;               /* the largest storage buffer a shader may read */
    char    splat_why[96];          /* why not, when it has it */
    GLuint  prog_splat, prog_resolve_sums, buf_acc;
    int     acc_planes, acc_w, acc_h, tex_w, tex_h;
    GLint   u_s_mvp, u_s_mref, u_s_per, u_s_mode, u_s_range, u_s_lut, u_s_size, u_s_n, u_s_plane;
    GLint   u_v_mask, u_v_lut, u_v_log, u_v_mode, u_v_line, u_v_w, u_v_plane, u_v_unit;
    GLuint  query[2];
    int     qnext, qpending[2];
    double  last_ms;
    /* uniform locations */
    GLint   u_p_mvp, u_p_mref, u_p_mode, u_p_range, u_p_lut;
    GLint   u_t_mvp, u_t_ppu, u_t_px;
    GLint   u_r_acc, u_r_mask, u_r_lut, u_r_log, u_r_mode, u_r_line;
    GLint   u_q_size;
};

/* ---- shaders ------------------------------------------------------------- */

static const char *vs_points =
    "#version 330 core\n"
    "layout(location = 0) in vec4 a_pm;\n"       /* x, y, z, m */
    "layout(location = 1) in float a_speed;\n"
    "uniform mat4 u_mvp;\n"
    "uniform float u_mref;\n"                    /* lightest mass: a 1-pixel sprite */
    "uniform int u_mode;\n"                      /* 1 mass, 2 speed (0: density, colour unused) */
    "uniform vec2 u_range;\n"                    /* colour range: log10 mass or speed */
    "out float v_m;\n"
    "flat out int v_level;\n"
    "flat out float v_size;\n"
    "void main() {\n"
    "  gl_Position = u_mvp * vec4(a_pm.xyz, 1.0);\n"
    "  float m = a_pm.w;\n"
    "  float dec = m > u_mref ? floor(log2(m / u_mref) * 0.30103) : 0.0;\n"
    "  v_size = 1.0 + 2.0 * clamp(dec, 0.0, 4.0);\n"
    "  gl_PointSize = v_size;\n"
    "  float a = u_mode == 2 ? a_speed : (m > 0.0 ? log2(m) * 0.30102999566 : u_range.x);\n"
    "  float t = clamp((a - u_range.x) / (u_range.y - u_range.x), 0.0, 1.0);\n"
    "  v_level = int(floor(t * 255.0 + 0.5));\n"
    "  v_m = m;\n"
    "}\n";

static const char *fs_points =
    "#version 330 core\n"
    "in float v_m;\n"
    "flat in int v_level;\n"
    "flat in float v_size;\n"
    "uniform sampler2D u_lut;\n"
    "out vec4 o;\n"
    "void main() {\n"
    "  float f = 1.0;\n"                         /* a 1-pixel sprite: its whole mass */
    "  if (v_size > 1.0) {\n"                    /* wider: a smooth bump, 1 at the centre */
    "    vec2 d = (gl_PointCoord - 0.5) * v_size / (0.5 * v_size + 0.5);\n"
    "    float r2 = dot(d, d);\n"
    "    if (r2 >= 1.0) discard;\n"
    "    f = (1.0 - r2) * (1.0 - r2);\n"
    "  }\n"
    "  float w = v_m * f;\n"
    "  o = vec4(texelFetch(u_lut, ivec2(v_level, 0), 0).rgb * w, w);\n"
    "}\n";

static const char *vs_tree =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_corner;\n"   /* a corner of the cube [-1, 1]^3 */
    "layout(location = 1) in vec4 a_cell;\n"     /* per instance: centre, half size */
    "uniform mat4 u_mvp;\n"
    "uniform float u_ppu;\n"                     /* pixels per length unit */
    "uniform vec2 u_px;\n"                       /* one pixel in clip coordinates */
    "void main() {\n"
    "  if (!(a_cell.w > 0.0) || 2.0 * a_cell.w * u_ppu < 3.0) {\n"
    "    gl_Position = vec4(2.0, 2.0, 0.0, 1.0);\n"   /* culled: outside the image */
    "    return;\n"
    "  }\n"
    "  vec4 c = u_mvp * vec4(a_cell.xyz, 1.0);\n"
    "  vec4 v = u_mvp * vec4(a_cell.xyz + a_cell.w * a_corner, 1.0);\n"
    /* a 64th of a pixel towards the cube's centre: an edge exactly on a
     * pixel boundary is drawn in the pixel inside the cell, as the CPU
     * splatter draws it */
    "  vec2 d = c.xy - v.xy;\n"
    "  v.xy += sign(d) * step(vec2(1e-7), abs(d)) * u_px / 64.0;\n"
    "  gl_Position = v;\n"
    "}\n";

static const char *fs_one =
    "#version 330 core\n"
    "out vec4 o;\n"
    "void main() { o = vec4(1.0); }\n";

static const char *vs_full =
    "#version 330 core\n"
    "void main() {\n"                            /* one triangle over the whole image */
    "  vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);\n"
    "  gl_Position = vec4(p, 0.0, 1.0);\n"
    "}\n";

/* Pass 3's colour, shared by both forms of the resolve: the pixel's mass
 * on the log scale (level = 255 (log10 mass - lo) / (hi - lo), clamped to
 * [1, 255]), the density map's colour at that level or the pixel's mean
 * colour dimmed by it, then the tree's mask. */
#define NB_GLSL_SHADE \
    "uniform sampler2D u_mask, u_lut;\n" \
    "uniform vec2 u_log;\n"                      /* log10 weight at level 0 and 255 */ \
    "uniform int u_mode;\n" \
    "uniform vec3 u_line;\n" \
    "out vec4 o;\n" \
    "void shade(ivec2 p, float mass, vec3 mean) {\n" \
    "  vec3 c = vec3(0.0);\n" \
    "  if (mass > 0.0) {\n" \
    "    float lv = floor((log2(mass) * 0.30102999566 - u_log.x) * 255.0 / (u_log.y - u_log.x) + 0.5);\n" \
    "    lv = clamp(lv, 1.0, 255.0);\n" \
    "    if (u_mode == 0) c = texelFetch(u_lut, ivec2(int(lv), 0), 0).rgb;\n" \
    "    else c = mean * (0.4 + 0.6 * lv / 255.0);\n" \
    "  }\n" \
    "  if (texelFetch(u_mask, p, 0).r > 0.5) c += 0.5 * (u_line - c);\n" \
    "  o = vec4(c, 1.0);\n" \
    "}\n"

static const char *fs_resolve =
    "#version 330 core\n"
    NB_GLSL_SHADE
    "uniform sampler2D u_acc;\n"
    "void main() {\n"
    "  ivec2 p = ivec2(gl_FragCoord.xy);\n"
    "  vec4 a = texelFetch(u_acc, p, 0);\n"
    "  shade(p, a.a, a.a > 0.0 ? a.rgb / a.a : vec3(0.0));\n"
    "}\n";

/* The compute form of pass 1: a body of mass m adds m / unit times its
 * sprite's profile (the same sizes and profile as fs_points), at least 1,
 * to the weight sums of the pixels under its sprite, and that times its
 * colour's bytes to the colour sums.  A sum is two words, low and high:
 * the low word's atomicAdd returns the old value, and a wrap carries one
 * into the high word, so the 64-bit total is exact whatever the order.
 * The unit (nb_gl_draw) is 1/256 of the lightest mass, or more where all
 * the mass times 255 would pass 2^63 counts: no sum can overflow.  A body
 * lands in the pixel that holds it as the CPU splatter rounds (x down, y
 * up: its rows count from the top, the window's from the bottom). */
static const char *cs_splat =
    "#version 430 core\n"
    "layout(local_size_x = 256) in;\n"
    "layout(std430, binding = 0) readonly buffer Bodies { vec4 b_pm[]; };\n"
    "layout(std430, binding = 1) readonly buffer Speeds { float b_speed[]; };\n"
    "layout(std430, binding = 2) buffer Sums { uint acc[]; };\n"
    "uniform mat4 u_mvp;\n"
    "uniform float u_mref;\n"
    "uniform float u_per;\n"                    /* counts per unit of mass: 1 / unit */
    "uniform int u_mode;\n"
    "uniform vec2 u_range;\n"
    "uniform sampler2D u_lut;\n"
    "uniform ivec2 u_size;\n"
    "uniform uint u_n;\n"
    "uniform uint u_plane;\n"                    /* words in a plane: 2 w h */
    "void add(uint i, float v) {\n"
    "  uint hi = uint(v * 2.3283064365386963e-10);\n"     /* v / 2^32 */
    "  uint lo = uint(v - float(hi) * 4294967296.0);\n"
    "  if (lo != 0u && atomicAdd(acc[i], lo) + lo < lo) hi++;\n"
    "  if (hi != 0u) atomicAdd(acc[i + 1u], hi);\n"
    "}\n"
    "void main() {\n"
    "  uint stride = gl_NumWorkGroups.x * 256u;\n"
    "  for (uint k = gl_GlobalInvocationID.x; k < u_n; k += stride) {\n"
    "    vec4 pm = b_pm[k];\n"
    "    float m = pm.w;\n"
    "    if (!(m > 0.0)) continue;\n"
    "    vec4 c = u_mvp * vec4(pm.xyz, 1.0);\n"
    "    vec2 win = (c.xy / c.w * 0.5 + 0.5) * vec2(u_size);\n"   /* GL's viewport transform */
    "    float dec = m > u_mref ? floor(log2(m / u_mref) * 0.30103) : 0.0;\n"
    "    int r = int(clamp(dec, 0.0, 4.0));\n"   /* the sprite: 2 r + 1 pixels wide */
    "    float fr = float(r) + 1.0;\n"
    "    if (!(win.x > -fr && win.y > -fr && win.x < float(u_size.x) + fr && win.y < float(u_size.y) + fr))\n"
    "      continue;\n"                          /* outside, or not a number */
    "    ivec2 p0 = ivec2(floor(win.x), ceil(win.y) - 1.0);\n"
    "    float base = min(m * u_per, 9.2e18);\n"
    "    uvec3 rgb = uvec3(0u);\n"
    "    if (u_mode != 0) {\n"
    "      float a = u_mode == 2 ? b_speed[k] : log2(m) * 0.30102999566;\n"
    "      float t = clamp((a - u_range.x) / (u_range.y - u_range.x), 0.0, 1.0);\n"
    "      rgb = uvec3(texelFetch(u_lut, ivec2(int(floor(t * 255.0 + 0.5)), 0), 0).rgb * 255.0 + 0.5);\n"
    "    }\n"
    "    for (int dy = -r; dy <= r; dy++)\n"
    "      for (int dx = -r; dx <= r; dx++) {\n"
    "        ivec2 p = p0 + ivec2(dx, dy);\n"
    "        if (p.x < 0 || p.y < 0 || p.x >= u_size.x || p.y >= u_size.y) continue;\n"
    "        float f = 1.0;\n"
    "        if (r > 0) {\n"                     /* the smooth bump of fs_points */
    "          vec2 d = (vec2(p) + 0.5 - win) / fr;\n"
    "          float r2 = dot(d, d);\n"
    "          if (r2 >= 1.0) continue;\n"
    "          f = (1.0 - r2) * (1.0 - r2);\n"
    "        }\n"
    "        float v = max(base * f, 1.0);\n"
    "        uint i = 2u * uint(p.y * u_size.x + p.x);\n"
    "        add(i, v);\n"
    "        if (u_mode != 0) {\n"
    "          add(u_plane + i, v * float(rgb.r));\n"
    "          add(2u * u_plane + i, v * float(rgb.g));\n"
    "          add(3u * u_plane + i, v * float(rgb.b));\n"
    "        }\n"
    "      }\n"
    "  }\n"
    "}\n";

/* Pass 3 of the compute form: the same colour, from the sums (the colour
 * planes only in the mass and speed modes: in the density mode they are
 * not there). */
static const char *fs_resolve_sums =
    "#version 430 core\n"
    NB_GLSL_SHADE
    "layout(std430, binding = 2) readonly buffer Sums { uint acc[]; };\n"
    "uniform int u_w;\n"
    "uniform uint u_plane;\n"
    "uniform float u_unit;\n"                    /* the mass of one count */
    "float sum(uint i) { return float(acc[i + 1u]) * 4294967296.0 + float(acc[i]); }\n"
    "void main() {\n"
    "  ivec2 p = ivec2(gl_FragCoord.xy);\n"
    "  uint i = 2u * uint(p.y * u_w + p.x);\n"
    "  float w = sum(i);\n"
    "  shade(p, w * u_unit, u_mode != 0 && w > 0.0\n"
    "      ? vec3(sum(u_plane + i), sum(2u * u_plane + i), sum(3u * u_plane + i)) / (w * 255.0) : vec3(0.0));\n"
    "}\n";

static const char *vs_rect =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_px;\n"       /* pixels, row 0 on top */
    "layout(location = 1) in vec3 a_rgb;\n"
    "uniform vec2 u_size;\n"
    "out vec3 v_rgb;\n"
    "void main() {\n"
    "  gl_Position = vec4(a_px.x / u_size.x * 2.0 - 1.0, 1.0 - a_px.y / u_size.y * 2.0, 0.0, 1.0);\n"
    "  v_rgb = a_rgb;\n"
    "}\n";

static const char *fs_rect =
    "#version 330 core\n"
    "in vec3 v_rgb;\n"
    "out vec4 o;\n"
    "void main() { o = vec4(v_rgb, 1.0); }\n";

static int gl_check(const char *what)
{
    GLenum e = glGetError(), first = e;
    while (e != GL_NO_ERROR)
        e = glGetError();
    if (first != GL_NO_ERROR)
        return nb_fail(NB_EXIT_RUNTIME, "OpenGL error 0x%04x in %s", (unsigned)first, what);
    return 0;
}

/* The message of a shader that does not compile or a program that does
 * not link, with the first line of GL's log; returns 0 (no object). */
static GLuint gl_refused(GLuint obj, int is_program, const char *name)
{
    char log[512] = "";
    if (is_program) glGetProgramInfoLog(obj, sizeof log, NULL, log);
    else glGetShaderInfoLog(obj, sizeof log, NULL, log);
    log[strcspn(log, "\n")] = '\0';
    nb_fail(NB_EXIT_RUNTIME, "OpenGL: the %s %s: %s", name,
            is_program ? "program does not link" : "shader does not compile", log);
    if (is_program) glDeleteProgram(obj);
    else glDeleteShader(obj);
    return 0;
}

static GLuint shader(GLenum kind, const char *src, const char *name)
{
    GLuint s = glCreateShader(kind);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    return ok ? s : gl_refused(s, 0, name);
}

static GLuint program(const char *vs, const char *fs, const char *name)
{
    GLuint v = shader(GL_VERTEX_SHADER, vs, name), f = v ? shader(GL_FRAGMENT_SHADER, fs, name) : 0;
    if (!v || !f) {
        if (v) glDeleteShader(v);
        return 0;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    return ok ? p : gl_refused(p, 1, name);
}

static GLuint compute_program(const char *cs, const char *name)
{
    GLuint c = shader(GL_COMPUTE_SHADER, cs, name);
    if (!c)
        return 0;
    GLuint p = glCreateProgram();
    glAttachShader(p, c);
    glLinkProgram(p);
    glDeleteShader(c);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    return ok ? p : gl_refused(p, 1, name);
}

/* A 256 x 1 RGB lookup texture of a colour map. */
static GLuint lut(int mode)
{
    unsigned char rgb[256 * 4];
    for (int l = 0; l < 256; l++) {
        nb_render_colour(mode, (unsigned char)l, rgb + 4 * l);
        rgb[4 * l + 3] = 255;
    }
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgb);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    return t;
}

const char *nb_gl_bodies_how(const nb_gl *g)
{
    static char buf[160];
    if (g->splat)
        return "added up by a compute shader (64-bit integer sums)";
    snprintf(buf, sizeof buf, "point sprites blended into a float image%s%s%s",
             g->splat_why[0] ? " (" : "", g->splat_why, g->splat_why[0] ? ")" : "");
    return buf;
}

void nb_gl_describe(char *buf, size_t len)
{
    const char *v = (const char *)glGetString(GL_VERSION), *r = (const char *)glGetString(GL_RENDERER);
    snprintf(buf, len, "OpenGL %s, %s", v ? v : "?", r ? r : "?");
}

int nb_gl_create(nb_gl **out, int64_t n)
{
    *out = NULL;
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    if (major * 10 + minor < 33) {
        char d[256];
        nb_gl_describe(d, sizeof d);
        return nb_fail(NB_EXIT_RUNTIME, "the view needs OpenGL 3.3 core, this context is %s", d);
    }
    nb_gl *g = calloc(1, sizeof *g);
    if (!g)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory for the renderer");
    g->n = n;
    g->last_ms = -1;
    g->prog_points = program(vs_points, fs_points, "points");
    g->prog_tree = g->prog_points ? program(vs_tree, fs_one, "tree") : 0;
    g->prog_resolve = g->prog_tree ? program(vs_full, fs_resolve, "resolve") : 0;
    g->prog_rect = g->prog_resolve ? program(vs_rect, fs_rect, "text") : 0;
    const char *sprites = getenv("NB_GL_SPRITES");
    g->splat_ok = major * 10 + minor >= 43 && !(sprites && *sprites && strcmp(sprites, "0"));
    if (!g->prog_rect) {
        nb_gl_destroy(g);
        return NB_EXIT_RUNTIME;
    }
    if (g->splat_ok) {                           /* the compute form, or the sprites and why */
        while (glGetError() != GL_NO_ERROR) {}
        glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &g->ssbo_max);
        if (glGetError() != GL_NO_ERROR || g->ssbo_max <= 0) {
            g->splat_ok = 0;
            snprintf(g->splat_why, sizeof g->splat_why, "this GL has no shader storage buffers");
        } else {
            g->prog_splat = compute_program(cs_splat, "bodies' sums");
            g->prog_resolve_sums = g->prog_splat ? program(vs_full, fs_resolve_sums, "resolve of the sums") : 0;
            if (!g->prog_resolve_sums) {
                g->splat_ok = 0;
                snprintf(g->splat_why, sizeof g->splat_why, "%.90s", nb_errmsg());
                nb_clear_error();
            }
        }
    }
    g->splat = g->splat_ok;
    GLuint p = g->prog_points;
    g->u_p_mvp = glGetUniformLocation(p, "u_mvp");
    g->u_p_mref = glGetUniformLocation(p, "u_mref");
    g->u_p_mode = glGetUniformLocation(p, "u_mode");
    g->u_p_range = glGetUniformLocation(p, "u_range");
    g->u_p_lut = glGetUniformLocation(p, "u_lut");
    p = g->prog_tree;
    g->u_t_mvp = glGetUniformLocation(p, "u_mvp");
    g->u_t_ppu = glGetUniformLocation(p, "u_ppu");
    g->u_t_px = glGetUniformLocation(p, "u_px");
    p = g->prog_resolve;
    g->u_r_acc = glGetUniformLocation(p, "u_acc");
    g->u_r_mask = glGetUniformLocation(p, "u_mask");
    g->u_r_lut = glGetUniformLocation(p, "u_lut");
    g->u_r_log = glGetUniformLocation(p, "u_log");
    g->u_r_mode = glGetUniformLocation(p, "u_mode");
    g->u_r_line = glGetUniformLocation(p, "u_line");
    g->u_q_size = glGetUniformLocation(g->prog_rect, "u_size");
    if (g->splat) {
        p = g->prog_splat;
        g->u_s_mvp = glGetUniformLocation(p, "u_mvp");
        g->u_s_mref = glGetUniformLocation(p, "u_mref");
        g->u_s_per = glGetUniformLocation(p, "u_per");
        g->u_s_mode = glGetUniformLocation(p, "u_mode");
        g->u_s_range = glGetUniformLocation(p, "u_range");
        g->u_s_lut = glGetUniformLocation(p, "u_lut");
        g->u_s_size = glGetUniformLocation(p, "u_size");
        g->u_s_n = glGetUniformLocation(p, "u_n");
        g->u_s_plane = glGetUniformLocation(p, "u_plane");
        p = g->prog_resolve_sums;
        g->u_v_mask = glGetUniformLocation(p, "u_mask");
        g->u_v_lut = glGetUniformLocation(p, "u_lut");
        g->u_v_log = glGetUniformLocation(p, "u_log");
        g->u_v_mode = glGetUniformLocation(p, "u_mode");
        g->u_v_line = glGetUniformLocation(p, "u_line");
        g->u_v_w = glGetUniformLocation(p, "u_w");
        g->u_v_plane = glGetUniformLocation(p, "u_plane");
        g->u_v_unit = glGetUniformLocation(p, "u_unit");
    }

    /* bodies: n float4 (x, y, z, m) and n speeds */
    size_t nn = (size_t)(n > 0 ? n : 1);
    glGenVertexArrays(1, &g->vao_points);
    glBindVertexArray(g->vao_points);
    glGenBuffers(1, &g->buf_pm);
    glBindBuffer(GL_ARRAY_BUFFER, g->buf_pm);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(nn * 4 * sizeof(float)), NULL, GL_DYNAMIC_DRAW);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    glGenBuffers(1, &g->buf_speed);
    glBindBuffer(GL_ARRAY_BUFFER, g->buf_speed);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(nn * sizeof(float)), NULL, GL_DYNAMIC_DRAW);
    glVertexAttribPointer(1, 1, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(1);
    int rc = gl_check("allocating the bodies' buffers");
    if (rc) {
        nb_gl_destroy(g);
        return nb_fail(NB_EXIT_RUNTIME, "%s (%lld bodies: %.1f MiB)", nb_errmsg(), (long long)n,
                       nn * 20.0 / 1048576.0);
    }

    /* the cube's 12 edges, two corners each; the cells come per instance */
    static const float e[12][2][3] = {
        {{-1,-1,-1},{ 1,-1,-1}}, {{-1, 1,-1},{ 1, 1,-1}}, {{-1,-1, 1},{ 1,-1, 1}}, {{-1, 1, 1},{ 1, 1, 1}},
        {{-1,-1,-1},{-1, 1,-1}}, {{ 1,-1,-1},{ 1, 1,-1}}, {{-1,-1, 1},{-1, 1, 1}}, {{ 1,-1, 1},{ 1, 1, 1}},
        {{-1,-1,-1},{-1,-1, 1}}, {{ 1,-1,-1},{ 1,-1, 1}}, {{-1, 1,-1},{-1, 1, 1}}, {{ 1, 1,-1},{ 1, 1, 1}},
    };
    glGenVertexArrays(1, &g->vao_tree);
    glBindVertexArray(g->vao_tree);
    glGenBuffers(1, &g->buf_cube);
    glBindBuffer(GL_ARRAY_BUFFER, g->buf_cube);
    glBufferData(GL_ARRAY_BUFFER, sizeof e, e, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    glGenBuffers(1, &g->buf_cells);

    glGenVertexArrays(1, &g->vao_empty);
    glGenVertexArrays(1, &g->vao_rect);
    glBindVertexArray(g->vao_rect);
    glGenBuffers(1, &g->buf_rect);
    glBindVertexArray(0);

    g->lut_density = lut(NB_COLOUR_DENSITY);
    g->lut_attr = lut(NB_COLOUR_MASS);
    glGenQueries(2, g->query);
    if ((rc = gl_check("setting up the renderer"))) {
        nb_gl_destroy(g);
        return rc;
    }
    *out = g;
    return 0;
}

void nb_gl_destroy(nb_gl *g)
{
    if (!g)
        return;
    GLuint progs[] = { g->prog_points, g->prog_tree, g->prog_resolve, g->prog_rect, g->prog_splat,
                       g->prog_resolve_sums };
    for (int k = 0; k < 6; k++)
        if (progs[k]) glDeleteProgram(progs[k]);
    if (g->buf_acc) glDeleteBuffers(1, &g->buf_acc);
    GLuint vaos[] = { g->vao_points, g->vao_tree, g->vao_empty, g->vao_rect };
    glDeleteVertexArrays(4, vaos);
    GLuint bufs[] = { g->buf_pm, g->buf_speed, g->buf_cube, g->buf_cells, g->buf_rect };
    glDeleteBuffers(5, bufs);
    GLuint tex[] = { g->lut_density, g->lut_attr, g->tex_acc, g->tex_mask };
    glDeleteTextures(4, tex);
    GLuint fbo[] = { g->fbo_acc, g->fbo_mask, g->fbo_out };
    glDeleteFramebuffers(3, fbo);
    if (g->rbo_out) glDeleteRenderbuffers(1, &g->rbo_out);
    if (g->query[0]) glDeleteQueries(2, g->query);
    nb_annot_free(&g->annot);
    free(g->stage);
    free(g);
}

static float *stage(nb_gl *g, size_t floats)
{
    if (floats > g->stage_len) {
        float *p = realloc(g->stage, floats * sizeof *p);
        if (!p)
            return NULL;
        g->stage = p;
        g->stage_len = floats;
    }
    return g->stage;
}

int nb_gl_bodies_host(nb_gl *g, const nb_state *s)
{
    int64_t n = s->n < g->n ? s->n : g->n;
    float *p = stage(g, (size_t)n * 5 + 1);
    if (!p)
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory for the view's copy of %lld bodies",
                       (long long)n);
    float *sp = p + 4 * n;
    for (int64_t i = 0; i < n; i++) {
        p[4 * i] = s->x[i]; p[4 * i + 1] = s->y[i]; p[4 * i + 2] = s->z[i]; p[4 * i + 3] = s->m[i];
        sp[i] = sqrtf(s->vx[i] * s->vx[i] + s->vy[i] * s->vy[i] + s->vz[i] * s->vz[i]);
    }
    glBindBuffer(GL_ARRAY_BUFFER, g->buf_pm);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(n * 4 * sizeof(float)), p);
    glBindBuffer(GL_ARRAY_BUFFER, g->buf_speed);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(n * sizeof(float)), sp);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return gl_check("uploading the bodies");
}

void nb_gl_body_buffers(nb_gl *g, unsigned *pos_mass, unsigned *speed)
{
    *pos_mass = g->buf_pm;
    *speed = g->buf_speed;
}

int nb_gl_cells_buffer(nb_gl *g, int64_t count, unsigned *buf, int64_t *cap)
{
    if (count > g->cells_cap) {
        int64_t c = count + count / 2 + 64;
        /* a new buffer object, so that an interop registration of the old
         * one never sees it change size under it */
        glDeleteBuffers(1, &g->buf_cells);
        glGenBuffers(1, &g->buf_cells);
        glBindBuffer(GL_ARRAY_BUFFER, g->buf_cells);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(c * 4 * (int64_t)sizeof(float)), NULL, GL_DYNAMIC_DRAW);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        g->cells_cap = c;
        g->cells_n = 0;
        glBindVertexArray(g->vao_tree);
        glBindBuffer(GL_ARRAY_BUFFER, g->buf_cells);
        glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 0, NULL);
        glVertexAttribDivisor(1, 1);
        glEnableVertexAttribArray(1);
        glBindVertexArray(0);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        int rc = gl_check("allocating the cells' buffer");
        if (rc) {
            g->cells_cap = 0;
            return rc;
        }
    }
    *buf = g->buf_cells;
    *cap = g->cells_cap;
    return 0;
}

void nb_gl_cells_count(nb_gl *g, int64_t count) { g->cells_n = count; }

int nb_gl_cells_host(nb_gl *g, const nb_cells *c, int depth)
{
    int st = c->stride > 1 ? c->stride : 1;
    GLuint buf;
    int64_t cap, kept = 0;
    int rc = nb_gl_cells_buffer(g, c->count, &buf, &cap);
    if (rc)
        return rc;
    float *p = stage(g, (size_t)c->count * 4 + 1);
    if (!p)
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %lld cells", (long long)c->count);
    /* depth <= D  <=>  half >= root / 2^D (halves are the root's over
     * powers of 2; 0.75 keeps a rounding error from deciding) */
    float thr = depth < 0 || c->count == 0 ? 0.0f : c->half[0] * ldexpf(0.75f, -depth);
    for (int64_t k = 0; k < c->count; k++) {
        float h = c->half[k * st];
        if (!(h > 0.0f) || h < thr)
            continue;
        p[4 * kept] = c->cx[k * st]; p[4 * kept + 1] = c->cy[k * st];
        p[4 * kept + 2] = c->cz[k * st]; p[4 * kept + 3] = h;
        kept++;
    }
    glBindBuffer(GL_ARRAY_BUFFER, buf);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(kept * 4 * (int64_t)sizeof(float)), p);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    g->cells_n = kept;
    return gl_check("uploading the cells");
}

/* ---- drawing --------------------------------------------------------------- */

/* The compute form's sums for w x h pixels and planes planes (1: the
 * weights; 4: and the colours): kept while big enough. */
static int sums(nb_gl *g, int w, int h, int planes)
{
    if (g->buf_acc && g->acc_w == w && g->acc_h == h && g->acc_planes >= planes)
        return 0;
    if (!g->buf_acc)
        glGenBuffers(1, &g->buf_acc);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->buf_acc);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)planes * 2 * w * h * (GLsizeiptr)sizeof(GLuint), NULL,
                 GL_DYNAMIC_COPY);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    g->acc_planes = planes;
    g->acc_w = w;
    g->acc_h = h;
    int rc = gl_check("allocating the bodies' sums");
    if (rc) {
        g->acc_planes = 0;
        return nb_fail(rc, "%s (%dx%d pixels, %d sums each)", nb_errmsg(), w, h, planes);
    }
    return 0;
}

/* Images of w x h for the passes (and the frame's own when offscreen). */
static int targets(nb_gl *g, int w, int h, int offscreen, int planes)
{
    if (!g->tex_acc) {
        glGenTextures(1, &g->tex_acc);
        glGenTextures(1, &g->tex_mask);
        glGenFramebuffers(1, &g->fbo_acc);
        glGenFramebuffers(1, &g->fbo_mask);
    }
    if (g->splat && sums(g, w, h, planes)) {      /* no room for the sums: the sprites */
        snprintf(g->splat_why, sizeof g->splat_why, "%.90s", nb_errmsg());
        nb_clear_error();
        g->splat = 0;
    }
    if (g->splat && g->tex_w) {                  /* the other form's image, freed */
        glBindTexture(GL_TEXTURE_2D, g->tex_acc);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, 1, 1, 0, GL_RGBA, GL_FLOAT, NULL);
        g->tex_w = g->tex_h = 0;
    } else if (!g->splat && g->acc_planes) {
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->buf_acc);
        glBufferData(GL_SHADER_STORAGE_BUFFER, 4, NULL, GL_DYNAMIC_COPY);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
        g->acc_planes = g->acc_w = g->acc_h = 0;
    }
    if (!g->splat && (g->tex_w != w || g->tex_h != h)) {   /* the sprites' float image */
        glBindTexture(GL_TEXTURE_2D, g->tex_acc);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, w, h, 0, GL_RGBA, GL_FLOAT, NULL);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glBindFramebuffer(GL_FRAMEBUFFER, g->fbo_acc);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, g->tex_acc, 0);
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
            return nb_fail(NB_EXIT_RUNTIME, "OpenGL: cannot render into a %dx%d float image", w, h);
        g->tex_w = w;
        g->tex_h = h;
    }
    if (g->w != w || g->h != h) {
        glBindTexture(GL_TEXTURE_2D, g->tex_mask);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, w, h, 0, GL_RED, GL_UNSIGNED_BYTE, NULL);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glBindFramebuffer(GL_FRAMEBUFFER, g->fbo_mask);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, g->tex_mask, 0);
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
            return nb_fail(NB_EXIT_RUNTIME, "OpenGL: cannot render into a %dx%d mask", w, h);
        g->w = w;
        g->h = h;
    }
    if (offscreen && (g->out_w != w || g->out_h != h)) {
        if (!g->fbo_out) {
            glGenFramebuffers(1, &g->fbo_out);
            glGenRenderbuffers(1, &g->rbo_out);
        }
        glBindRenderbuffer(GL_RENDERBUFFER, g->rbo_out);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
        glBindFramebuffer(GL_FRAMEBUFFER, g->fbo_out);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, g->rbo_out);
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
            return nb_fail(NB_EXIT_RUNTIME, "OpenGL: cannot render into a %dx%d image", w, h);
        g->out_w = w;
        g->out_h = h;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return gl_check("sizing the images");
}

/* Column-major orthographic view-projection of the camera for w x h. */
static void mvp_of(const nb_gl_camera *c, int w, int h, float m[16])
{
    double hx = c->half, hy = c->half;
    if (w > h) hx *= (double)w / h; else hy *= (double)h / w;
    double cy = cos(c->yaw), sy = sin(c->yaw), cp = cos(c->pitch), sp = sin(c->pitch);
    /* R = Rx(pitch) Ry(yaw): rows are the camera's right, up and back axes */
    double R[3][3] = {
        { cy, 0.0, sy },
        { sp * sy, cp, -sp * cy },
        { -cp * sy, sp, cp * cy },
    };
    double s[3] = { 1.0 / hx, 1.0 / hy, -1.0 / (1e3 * c->half) };
    double t[3] = { c->cx, c->cy, c->cz };
    memset(m, 0, 16 * sizeof *m);
    for (int r = 0; r < 3; r++) {
        double off = 0.0;
        for (int k = 0; k < 3; k++) {
            m[4 * k + r] = (float)(s[r] * R[r][k]);
            off -= s[r] * R[r][k] * t[k];
        }
        m[12 + r] = (float)off;
    }
    m[15] = 1.0f;
}

int nb_gl_draw(nb_gl *g, int target, int w, int h, const nb_gl_scene *sc)
{
    int planes = sc->mode == NB_COLOUR_DENSITY ? 1 : 4;
    if (g->splat_ok) {                           /* the compute form, where its buffers fit */
        double bodies = (double)(g->n > 0 ? g->n : 1) * 4 * sizeof(float);
        double sums_b = (double)planes * 2 * w * h * sizeof(GLuint);
        g->splat = bodies <= (double)g->ssbo_max && sums_b <= (double)g->ssbo_max;
        if (!g->splat)
            snprintf(g->splat_why, sizeof g->splat_why, "%s past this GL's %.0f MiB storage buffer limit",
                     bodies > (double)g->ssbo_max ? "the bodies" : "the image's sums",
                     (double)g->ssbo_max / 1048576.0);
        else
            g->splat_why[0] = '\0';
    }
    int rc = targets(g, w, h, target == NB_GL_OFFSCREEN, planes);
    if (rc)
        return rc;
    int q = g->qnext;
    if (g->qpending[q]) {                        /* an old query still in flight: read it */
        GLuint64 ns = 0;
        glGetQueryObjectui64v(g->query[q], GL_QUERY_RESULT, &ns);
        g->last_ms = ns * 1e-6;
        g->qpending[q] = 0;
    }
    glBeginQuery(GL_TIME_ELAPSED, g->query[q]);
    float mvp[16];
    mvp_of(&sc->cam, w, h, mvp);
    glViewport(0, 0, w, h);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_DEPTH_CLAMP);                    /* nothing is lost in front or behind */

    int am = sc->mode == NB_COLOUR_SPEED ? NB_COLOUR_SPEED : NB_COLOUR_MASS;
    double lo = sc->lo[am], hi = sc->hi[am] > sc->lo[am] ? sc->hi[am] : sc->lo[am] + 1.0;
    float m_ref = (float)(sc->m_ref > 0 ? sc->m_ref : 1.0);
    /* the compute form's count: 1/256 of the lightest mass, or more where
     * 255 times all the mass would pass 2^63 counts; never below 1e-30 (its
     * inverse stays a float) */
    double unit = fmax(fmax((double)m_ref / 256.0, 255.0 * sc->m_sum / 9223372036854775808.0), 1e-30);
    GLuint plane = 2u * (GLuint)w * (GLuint)h;

    /* 1. the bodies, summed */
    if (g->splat) {
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->buf_acc);
        glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0,
                             (GLsizeiptr)planes * plane * (GLsizeiptr)sizeof(GLuint), GL_RED_INTEGER,
                             GL_UNSIGNED_INT, NULL);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
        size_t nn = (size_t)(g->n > 0 ? g->n : 1);
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, g->buf_pm, 0, (GLsizeiptr)(nn * 4 * sizeof(float)));
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 1, g->buf_speed, 0, (GLsizeiptr)(nn * sizeof(float)));
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, g->buf_acc);
        glUseProgram(g->prog_splat);
        glUniformMatrix4fv(g->u_s_mvp, 1, GL_FALSE, mvp);
        glUniform1f(g->u_s_mref, m_ref);
        glUniform1f(g->u_s_per, (float)(1.0 / unit));
        glUniform1i(g->u_s_mode, sc->mode);
        glUniform2f(g->u_s_range, (float)lo, (float)hi);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, g->lut_attr);
        glUniform1i(g->u_s_lut, 0);
        glUniform2i(g->u_s_size, w, h);
        glUniform1ui(g->u_s_n, (GLuint)g->n);
        glUniform1ui(g->u_s_plane, plane);
        int64_t groups = (g->n + 255) / 256;
        glDispatchCompute((GLuint)(groups < 1 ? 1 : groups > 65535 ? 65535 : groups), 1, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    } else {
        glBindFramebuffer(GL_FRAMEBUFFER, g->fbo_acc);
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT);
        glEnable(GL_BLEND);
        glBlendEquation(GL_FUNC_ADD);
        glBlendFunc(GL_ONE, GL_ONE);
        glEnable(GL_PROGRAM_POINT_SIZE);
        glUseProgram(g->prog_points);
        glUniformMatrix4fv(g->u_p_mvp, 1, GL_FALSE, mvp);
        glUniform1f(g->u_p_mref, m_ref);
        glUniform1i(g->u_p_mode, sc->mode);
        glUniform2f(g->u_p_range, (float)lo, (float)hi);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, g->lut_attr);
        glUniform1i(g->u_p_lut, 0);
        glBindVertexArray(g->vao_points);
        glDrawArrays(GL_POINTS, 0, (GLsizei)g->n);
        glDisable(GL_BLEND);
    }

    /* 2. the tree's edges */
    glBindFramebuffer(GL_FRAMEBUFFER, g->fbo_mask);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    if (sc->tree && g->cells_n > 0) {
        glUseProgram(g->prog_tree);
        glUniformMatrix4fv(g->u_t_mvp, 1, GL_FALSE, mvp);
        glUniform1f(g->u_t_ppu, (float)((w < h ? w : h) / (2.0 * sc->cam.half)));
        glUniform2f(g->u_t_px, 2.0f / w, 2.0f / h);
        glBindVertexArray(g->vao_tree);
        glDrawArraysInstanced(GL_LINES, 0, 24, (GLsizei)g->cells_n);
    }

    /* 3. brightness, colours and the mask into the image */
    glBindFramebuffer(GL_FRAMEBUFFER, target == NB_GL_OFFSCREEN ? g->fbo_out : 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, g->tex_acc);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, g->tex_mask);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, g->lut_density);
    float log_hi = (float)(sc->log_hi > sc->log_lo ? sc->log_hi : sc->log_lo + 1.0);
    if (g->splat) {
        glUseProgram(g->prog_resolve_sums);
        glUniform1i(g->u_v_mask, 1);
        glUniform1i(g->u_v_lut, 2);
        glUniform2f(g->u_v_log, (float)sc->log_lo, log_hi);
        glUniform1i(g->u_v_mode, sc->mode);
        glUniform3f(g->u_v_line, 150 / 255.0f, 225 / 255.0f, 1.0f);
        glUniform1i(g->u_v_w, w);
        glUniform1ui(g->u_v_plane, plane);
        glUniform1f(g->u_v_unit, (float)unit);
    } else {
        glUseProgram(g->prog_resolve);
        glUniform1i(g->u_r_acc, 0);
        glUniform1i(g->u_r_mask, 1);
        glUniform1i(g->u_r_lut, 2);
        glUniform2f(g->u_r_log, (float)sc->log_lo, log_hi);
        glUniform1i(g->u_r_mode, sc->mode);
        glUniform3f(g->u_r_line, 150 / 255.0f, 225 / 255.0f, 1.0f);   /* the CPU overlay's pale cyan */
    }
    glBindVertexArray(g->vao_empty);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glActiveTexture(GL_TEXTURE0);

    /* 4. the facts */
    if (sc->facts) {
        if ((rc = nb_annot_build(&g->annot, w, h, sc->facts)))
            return rc;
        size_t nv = (size_t)g->annot.n * 6;
        /* a vertex: x, y (float) and r, g, b, pad (bytes) */
        float *v = stage(g, nv * 3 + 1);
        if (!v)
            return nb_fail(NB_EXIT_RUNTIME, "out of host memory for a frame's text");
        for (int k = 0; k < g->annot.n; k++) {
            const nb_rect *r = &g->annot.r[k];
            float xs[6] = { (float)r->x0, (float)r->x1, (float)r->x1, (float)r->x0, (float)r->x1, (float)r->x0 };
            float ys[6] = { (float)r->y0, (float)r->y0, (float)r->y1, (float)r->y0, (float)r->y1, (float)r->y1 };
            for (int j = 0; j < 6; j++) {
                float *o = v + 3 * (6 * (size_t)k + j);
                o[0] = xs[j];
                o[1] = ys[j];
                unsigned char *c = (unsigned char *)&o[2];
                c[0] = r->rgb[0]; c[1] = r->rgb[1]; c[2] = r->rgb[2]; c[3] = 255;
            }
        }
        glUseProgram(g->prog_rect);
        glUniform2f(g->u_q_size, (float)w, (float)h);
        glBindVertexArray(g->vao_rect);
        glBindBuffer(GL_ARRAY_BUFFER, g->buf_rect);
        if (nv * 12 > g->rect_cap) {
            g->rect_cap = nv * 12 * 2;
            glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)g->rect_cap, NULL, GL_STREAM_DRAW);
        }
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(nv * 12), v);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 12, NULL);
        glEnableVertexAttribArray(0);
        glVertexAttribPointer(1, 3, GL_UNSIGNED_BYTE, GL_TRUE, 12, (const void *)8);
        glEnableVertexAttribArray(1);
        glDrawArrays(GL_TRIANGLES, 0, (GLsizei)nv);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
    }
    glBindVertexArray(0);
    glUseProgram(0);
    glEndQuery(GL_TIME_ELAPSED);
    g->qpending[q] = 1;
    g->qnext = 1 - q;
    /* the other query: read it if it is done, without waiting */
    if (g->qpending[1 - q]) {
        GLuint avail = 0;
        glGetQueryObjectuiv(g->query[1 - q], GL_QUERY_RESULT_AVAILABLE, &avail);
        if (avail) {
            GLuint64 ns = 0;
            glGetQueryObjectui64v(g->query[1 - q], GL_QUERY_RESULT, &ns);
            g->last_ms = ns * 1e-6;
            g->qpending[1 - q] = 0;
        }
    }
    return gl_check("drawing a frame");
}

void nb_gl_finish(void) { glFinish(); }

double nb_gl_draw_ms(nb_gl *g, int wait)
{
    if (wait) {
        int q = 1 - g->qnext;                    /* the last one begun */
        if (g->qpending[q]) {
            GLuint64 ns = 0;
            glGetQueryObjectui64v(g->query[q], GL_QUERY_RESULT, &ns);
            g->last_ms = ns * 1e-6;
            g->qpending[q] = 0;
        }
    }
    return g->last_ms;
}

int nb_gl_read(nb_gl *g, int target, int w, int h, unsigned char *rgb)
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, target == NB_GL_OFFSCREEN ? g->fbo_out : 0);
    glReadBuffer(target == NB_GL_OFFSCREEN ? GL_COLOR_ATTACHMENT0 : GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, rgb);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    int rc = gl_check("reading the frame back");
    if (rc)
        return rc;
    size_t row = (size_t)w * 3;                  /* GL's row 0 is the bottom one */
    unsigned char *tmp = malloc(row);
    if (!tmp)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory reading a frame back");
    for (int r = 0; r < h / 2; r++) {
        unsigned char *a = rgb + row * r, *b = rgb + row * (h - 1 - r);
        memcpy(tmp, a, row);
        memcpy(a, b, row);
        memcpy(b, tmp, row);
    }
    free(tmp);
    return 0;
}

/* ---- camera and scales ---------------------------------------------------- */

nb_gl_camera nb_gl_camera_of(const nb_render_view *v)
{
    nb_gl_camera c = { v->cx, v->cy, 0.0, v->half, 0.0, 0.0 };
    return c;
}

void nb_gl_scales(nb_gl_scene *sc, const nb_state *s, const nb_render_view *v)
{
    sc->log_lo = v->log_lo;
    sc->log_hi = v->log_hi;
    sc->lo[NB_COLOUR_DENSITY] = v->log_lo;
    sc->hi[NB_COLOUR_DENSITY] = v->log_hi;
    double mmin = INFINITY, mmax = 0.0, msum = 0.0;
    for (int64_t i = 0; i < s->n; i++)
        if (s->m[i] > 0.0f && isfinite(s->m[i])) {
            if (s->m[i] < mmin) mmin = s->m[i];
            if (s->m[i] > mmax) mmax = s->m[i];
            msum += s->m[i];
        }
    sc->m_sum = msum;
    if (!(mmax > 0.0))
        mmin = mmax = 1.0;
    sc->m_ref = mmin;
    sc->lo[NB_COLOUR_MASS] = log10(mmin);
    sc->hi[NB_COLOUR_MASS] = mmax > mmin ? log10(mmax) : log10(mmin) + 1.0;
    /* speeds: 0 to the 99th percentile, from a sample of at most 65536 */
    int64_t ns = s->n < 65536 ? s->n : 65536, k = 0;
    double *sp = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *sp);
    double top = 0.0;
    if (sp) {
        for (int64_t j = 0; j < ns; j++) {
            int64_t i = (int64_t)((double)j * (double)s->n / (double)ns);
            double q = sqrt((double)s->vx[i] * s->vx[i] + (double)s->vy[i] * s->vy[i] +
                            (double)s->vz[i] * s->vz[i]);
            if (isfinite(q))
                sp[k++] = q;
        }
        if (k > 0)
            top = nb_percentile(sp, k, 0.99);
        free(sp);
    }
    sc->lo[NB_COLOUR_SPEED] = 0.0;
    sc->hi[NB_COLOUR_SPEED] = top > 0.0 ? top : 1.0;
}

/* ---- where the bodies come from -------------------------------------------- */

/* libnbcuda.a's interop: present in the GPU steps only (-u nb_glcuda_open) */
extern int  nb_glcuda_open(void **ic, unsigned pos_mass, unsigned speed) __attribute__((weak));
extern int  nb_glcuda_bodies(void *ic, const nb_bodies *b) __attribute__((weak));
extern int  nb_glcuda_cells(void *ic, unsigned buf, int64_t cap, const nb_cells *c, int depth,
                            int64_t *kept) __attribute__((weak));
extern void nb_glcuda_close(void *ic) __attribute__((weak));

int nb_gl_fetch(nb_gl *g, nb_gl_feed *fd, const nb_step *step, void *ctx, nb_state *s,
                int tree_depth, int want_cells, int *downloaded)
{
    int rc;
    *downloaded = 0;
    nb_bodies b;
    memset(&b, 0, sizeof b);
    /* bodies() first: it also makes the step's device (step06: GPU 0) current,
     * where the buffers must be registered */
    const char *no = getenv("NB_GL_NO_INTEROP");
    int device = step->bodies && nb_glcuda_open && !(no && *no) && (!fd->tried || fd->ic);
    if (device && (rc = step->bodies(ctx, &b)))
        return rc;
    if (!fd->tried) {
        fd->tried = 1;
        if (!step->bodies)
            snprintf(fd->why, sizeof fd->why, "%s", step->probe ? "the step exposes no device bodies"
                                                                : "a CPU step");
        else if (device && !b.x)            /* e.g. --precision double: no float copy on the device */
            snprintf(fd->why, sizeof fd->why, "the step keeps no float copy of its bodies on the device");
        else if (no && *no)
            snprintf(fd->why, sizeof fd->why, "NB_GL_NO_INTEROP is set");
        else if (!nb_glcuda_open)
            snprintf(fd->why, sizeof fd->why, "no CUDA-GL interop in this program");
        else {
            unsigned pm, sp;
            nb_gl_body_buffers(g, &pm, &sp);
            if (nb_glcuda_open(&fd->ic, pm, sp)) {
                snprintf(fd->why, sizeof fd->why, "%s", nb_errmsg());
                fd->ic = NULL;
            }
        }
    }
    if (fd->ic) {
        if ((rc = nb_glcuda_bodies(fd->ic, &b)))
            return rc;
    } else {
        if ((rc = step->download(ctx, s)))
            return rc;
        *downloaded = 1;
        if ((rc = nb_gl_bodies_host(g, s)))
            return rc;
    }
    if (want_cells && step->cells) {
        nb_cells c;
        memset(&c, 0, sizeof c);
        c.on_device = fd->ic != NULL;
        if ((rc = step->cells(ctx, &c)))
            return rc;
        if (c.on_device) {
            unsigned buf;
            int64_t cap, kept = 0;
            /* a buffer about to grow is unregistered first */
            if ((rc = nb_gl_cells_buffer(g, 0, &buf, &cap)) ||
                (c.count > cap && (rc = nb_glcuda_cells(fd->ic, 0, 0, NULL, 0, NULL))))
                return rc;
            if ((rc = nb_gl_cells_buffer(g, c.count, &buf, &cap)) ||
                (rc = nb_glcuda_cells(fd->ic, buf, cap, &c, tree_depth, &kept)))
                return rc;
            nb_gl_cells_count(g, kept);
        } else if ((rc = nb_gl_cells_host(g, &c, tree_depth)))
            return rc;
    }
    return 0;
}

void nb_gl_feed_close(nb_gl_feed *fd)
{
    if (fd->ic && nb_glcuda_close)
        nb_glcuda_close(fd->ic);
    fd->ic = NULL;
}

const char *nb_gl_feed_describe(const nb_gl_feed *fd)
{
    static char buf[320];
    if (fd->ic)
        return "CUDA-GL interop (no host copy)";
    snprintf(buf, sizeof buf, "uploaded from the host (%s)", fd->why[0] ? fd->why : "not drawn yet");
    return buf;
}
