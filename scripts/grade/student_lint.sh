#!/usr/bin/env bash
# scripts/grade/student_lint.sh -- compile one object of a lesson step, and refuse
# the code that would switch off the grade's instruments or borrow its
# answers.  common/step.mk compiles every object of a step through it (the
# objects of libstep.a and asan/libstep.a, the programs' main objects; the
# tuned builds too): the student's code is the grade's untrusted input.
#
#   student_lint.sh [--san 'FLAGS'] OBJ SRC -- COMPILER FLAGS...
#
# compiles SRC to OBJ with COMPILER FLAGS (FLAGS of --san added: the
# sanitized objects), after reading the preprocessed source (the same
# compiler and flags: gcc -E, or for CUDA nvcc's own kept passes, every
# device architecture and the host), so that a macro cannot build what the
# rules refuse.  Only the lesson's text is read: the kit tree's files and any
# file of no toolchain (not under /usr, CUDA, the compilers' own system
# include directories (-v) or a directory of an -I flag outside the tree;
# a system macro's expansion in a lesson file is read: its arguments are
# the student's).  Refused:
#  * what turns off instrumentation or the kit's flags: no_sanitize in any
#    spelling (no_sanitize_address, __no_sanitize__, ...),
#    no_address_safety_analysis, disable_sanitizer_instrumentation, optnone,
#    the attribute optimize, #pragma GCC optimize (and reset_options),
#    #pragma optimize, #pragma clang optimize and clang attribute, _Pragma
#    forms of them (gcc -E writes those as #pragma); inline assembly in C
#    (the sanitizers cannot see into it); the sanitizers' own interface, by
#    name in the text or defined in the object (__asan_default_options,
#    __asan_on_error, __ubsan_*, __sanitizer_*: their options and handlers);
#  * with --san: lesson text that differs between the build with the
#    sanitizers and the one without (#ifdef __SANITIZE_ADDRESS__ and the
#    like: the sanitizers must see the code that is graded);
#  * an #include of a source file (.c, .cu, ...) or of anything but a header
#    (.h .hh .hpp .hxx .cuh .inl), by its name and by the file it resolves
#    to; inline assembly that reads a file (.incbin, .include); #embed;
#  * a line directive (#line, # N "file") in a lesson file: the line markers
#    this check reads must tell the truth;
#  * an object that refers to or defines a function of common/nb_verify.h
#    (the grade's references and verdicts: nb_ref_*, nb_accel_errors*,
#    nb_rel_error, nb_within_tolerance, nb_tolerance_for*, nb_energy*, ...;
#    the list is read from the header), or refers to the dynamic loader's
#    look-ups (dlopen, dlmopen, dlsym, dlvsym, dladdr, dladdr1, dlinfo,
#    dl_iterate_phdr), or to files, other processes, programs or system
#    calls (open, fopen, read, write, mmap, readlink, opendir, syscall,
#    ptrace, process_vm_readv, fork, exec*, system, popen, getauxval,
#    socket, ...: the list $system below; stdio's printf and fprintf stay):
#    nm -g on OBJ.  common/ itself is not checked (the
#    programs' --check is its code);
#  * a reference to the system libraries (libc, libm, libstdc++, libgcc_s,
#    libgomp: their own exported names, nm -D) beyond memory, strings,
#    sorting, math, OpenMP and printing: the environment (getenv,
#    environ), the program's name (program_invocation_short_name), the
#    clock, the process and the machine, exit handlers (on_exit, _exit):
#    code that could tell the grader's box from a run of its own (step06's
#    files that start NCCL and MPI may read the environment, as the kit
#    wrote them: scripts/grade/lint_kit_files.sha256); and in a build
#    without the sanitizers, a reference to their runtime; a weak reference
#    to anything but the system libraries (nb_main, a worker's function:
#    null in one program and not in another, it would tell them apart).
# Quiet when nothing is found.  Each finding is one line,
#   FILE:LINE: what: refused (why)
# (FILE relative to the top of the tree), OBJ is removed and the exit status
# is 1.  A compiler error: the compiler's messages and its status.  Exit 2:
# bad usage.
set -uo pipefail
san=""
if [ "${1:-}" = --san ]; then san=${2:-}; shift 2 || true; fi
if [ $# -lt 4 ] || [ "$3" != -- ]; then
  echo "usage: student_lint.sh [--san 'FLAGS'] OBJ SRC -- COMPILER FLAGS..." >&2
  exit 2
fi
obj=$1 src=$2
shift 3
cc=("$@")
read -ra sanf <<< "$san"
here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
awkf=$here/student_lint.awk
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nb-lint.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
case "$src" in *.cu) kind=cu ;; *) kind=c ;; esac

refuse() {   # the findings file: print them, remove the object, exit 1
  cut -f2- "$1" >&2
  rm -f "$obj"
  exit 1
}

# ---- compile (CUDA: keeping its passes) or preprocess (C) ----
pps=()
if [ $kind = cu ]; then
  mkdir -p "$tmp/keep"
  "${cc[@]}" "${sanf[@]}" -keep -keep-dir "$tmp/keep" -c -o "$obj" "$src" || exit $?
  for f in "$tmp"/keep/*.ii; do [ -f "$f" ] && pps+=("$f"); done
else
  if ! "${cc[@]}" "${sanf[@]}" -E -o "$tmp/pp.i" "$src" 2> "$tmp/pp.err"; then
    # the compiler says why (the same error again), and the object is refused
    "${cc[@]}" "${sanf[@]}" -c -o "$obj" "$src" || exit $?
    printf 'F\t%s: the preprocessor failed where the compiler did not: refused (this check must read the code)\n' \
      "$src" > "$tmp/f"
    refuse "$tmp/f"
  fi
  pps+=("$tmp/pp.i")
  if [ -n "$san" ]; then
    "${cc[@]}" -E -o "$tmp/plain.i" "$src" 2>/dev/null && pps+=("$tmp/plain.i")
  fi
fi
if [ ${#pps[@]} = 0 ]; then
  printf 'F\t%s: no preprocessed source to read: refused (this check must read the code)\n' "$src" > "$tmp/f"
  refuse "$tmp/f"
fi

# ---- the files the preprocessor read: whose they are ----
foreign=()                       # the toolchain's: -I directories outside the tree, CUDA
for ((i = 0; i < ${#cc[@]}; i++)); do
  a=${cc[$i]} d=""
  case "$a" in
    -I|-isystem|-idirafter) d=${cc[$((i + 1))]:-} ;;
    -I*) d=${a#-I} ;;
    -isystem*) d=${a#-isystem} ;;
  esac
  [ -n "$d" ] || continue
  d=$(realpath -m -- "$d")
  case "$d/" in "$top"/*) ;; *) foreign+=("$d") ;; esac
done
if [ $kind = cu ]; then
  nv=$(command -v "${cc[0]}" 2>/dev/null) && foreign+=("$(realpath -m -- "$(dirname "$nv")/..")")
fi
foreign+=(/usr)
# the compilers' own system directories, wherever the toolchain lives (a
# GPU host's gcc under /opt): what gcc -v lists for #include <...>, for the
# compiler itself (C) or, for CUDA, the host compilers nvcc calls
sysdirs() {
  local x
  for x in c c++; do
    "$1" -E -v -x "$x" /dev/null 2>&1 >/dev/null | sed -n 's/^ \(\/[^ ]*\)$/\1/p'
  done
}
if [ $kind = cu ]; then
  hosts=(gcc g++)
  for ((i = 0; i < ${#cc[@]}; i++)); do
    case "${cc[$i]}" in
      -ccbin|--compiler-bindir) hosts+=("${cc[$((i + 1))]:-}") ;;
      -ccbin=*|--compiler-bindir=*) hosts+=("${cc[$i]#*=}") ;;
    esac
  done
else
  hosts=("${cc[0]}")
fi
for h in "${hosts[@]}"; do
  [ -n "$h" ] && command -v "$h" >/dev/null 2>&1 || continue
  while read -r d; do
    [ -n "$d" ] || continue
    d=$(realpath -m -- "$d")
    case "$d/" in "$top"/*) ;; *) foreign+=("$d") ;; esac
  done < <(sysdirs "$h")
done
mapfile -t names < <(sed -n 's/^# [0-9][0-9]* "\(.*\)".*$/\1/p' "${pps[@]}" | sort -u)
mapfile -t reals < <(realpath -m -- "${names[@]}" 2>/dev/null)
: > "$tmp/map"
for ((i = 0; i < ${#names[@]}; i++)); do
  n=${names[$i]} r=${reals[$i]:-${names[$i]}}
  case "$n" in
    '<'*|*/) printf '%s\t%s\tP\t%s\n' "$n" "$n" "$n" >> "$tmp/map"; continue ;;
  esac
  c=L shown=$r
  case "$r" in
    "$top"/*) shown=${r#"$top"/} ;;
    *) for d in "${foreign[@]}"; do case "$r/" in "$d"/*) c=F; break ;; esac; done ;;
  esac
  printf '%s\t%s\t%s\t%s\n' "$n" "$shown" "$c" "$r" >> "$tmp/map"
done

srcshown=$(realpath -m -- "$src"); srcshown=${srcshown#"$top"/}
# ---- the system libraries: only what a lesson needs of them ----
# Every name the C library, the math library, the C++ and GCC runtimes and
# GCC's OpenMP export is looked up in the running system's own copies (nm
# -D).  A lesson's object may refer to the math library's and the OpenMP
# runtime's (but their clocks), and of the rest to memory, strings,
# sorting and printing only (the list $allowed; their _chk forms too):
# nothing that reads the environment, the program's name, the clock, the
# process, the user or the machine (getenv, environ,
# program_invocation_name, clock_gettime, getpid, getuid, uname, ...), or
# that changes how the program ends (atexit in C, on_exit, signal,
# _exit): with those the code could tell the grader's box from a student's
# run and answer each differently.  The kit's own files that set up NCCL
# and MPI, and the tuned builds, may also read and set the environment, sleep and name
# the host.
allowed="malloc calloc realloc free aligned_alloc posix_memalign memcpy memmove memset memcmp memchr
 strlen strnlen strcmp strncmp strchr strrchr strstr strspn strcspn strtok strtok_r strcpy strncpy
 strcat strncat strdup strndup strtol strtoll strtoul strtoull strtod strtof atoi atol atoll atof
 __isoc23_strtol __isoc23_strtoll __isoc23_strtoul __isoc23_strtoull abs labs llabs div ldiv qsort bsearch
 printf fprintf vprintf vfprintf snprintf vsnprintf sprintf vsprintf puts fputs fputc putc _IO_putc putchar
 fwrite fflush perror strerror sscanf __isoc99_sscanf __isoc23_sscanf stdout stderr tolower toupper
 __ctype_b_loc __ctype_tolower_loc __ctype_toupper_loc __assert_fail __stack_chk_fail
 _Unwind_Resume __gxx_personality_v0 __cxa_guard_acquire __cxa_guard_release __cxa_guard_abort
 __cxa_begin_catch __cxa_end_catch __cxa_rethrow __cxa_pure_virtual _ZSt9terminatev
 _Znwm _Znam _ZdlPv _ZdlPvm _ZdaPv _ZdaPvm"
allowed=$(tr -s ' \n' '  ' <<< "$allowed")
[ $kind = cu ] && allowed="$allowed atexit __cxa_atexit"     # nvcc's own registration code
# The kit's files that start NCCL and MPI (scripts/grade/lint_kit_files.sha256
# lists them, with every file of their step that they read) may also read and
# set the environment, sleep, name the host and end at once -- as the kit
# wrote them: a student's copy that differs, or reads a header that differs,
# gets the rule of every lesson file.  The tuned builds (never in the
# student kit) may too.
kitlist=$here/lint_kit_files.sha256
extras="getenv secure_getenv setenv unsetenv nanosleep sched_yield gethostname _exit basename __xpg_basename"
kitfile=0 kitnote=""
case "$srcshown" in
  step0[0-9]*/tuned/*) kitfile=1 ;;
  *) awk -v p="$srcshown" '$2 == p && $3 == "start" { f = 1 } END { exit !f }' "$kitlist" 2>/dev/null && kitfile=2 ;;
esac
[ $kitfile = 1 ] && allowed="$allowed $extras"
lesson=1                             # 0: a kit file as the kit wrote it, or a tuned build's
[ $kitfile = 1 ] && lesson=0
: > "$tmp/libsyms"
for l in libc.so.6 libm.so.6 libstdc++.so.6 libgcc_s.so.1 libgomp.so.1; do
  p=""
  for h in gcc "${cc[0]}"; do
    command -v "$h" >/dev/null 2>&1 || continue
    p=$("$h" -print-file-name="$l" 2>/dev/null) && [ -f "$p" ] && break
    p=""
  done
  if [ -z "$p" ] && [ $l = libc.so.6 ]; then
    printf 'F\t%s: the C library (libc.so.6) cannot be found: refused (this check must know its names)\n' "$src" > "$tmp/f"
    refuse "$tmp/f"
  fi
  [ -n "$p" ] || continue
  case $l in libm.so.6) lib=m ;; libgomp.so.1) lib=omp ;; *) lib=c ;; esac
  nm -D --defined-only "$p" 2>/dev/null | awk -v lib=$lib 'NF >= 3 { n = $3; sub(/@.*/, "", n); print lib "\t" n }' >> "$tmp/libsyms"
done
# a kit file as the kit wrote it: it and each file of the steps it reads
if [ $kitfile = 2 ]; then
  same=1
  while IFS=$'\t' read -r _ shown c r; do
    [ "$c" = L ] || continue
    case "$shown" in step0[0-9]*/*) ;; *) continue ;; esac
    want=$(awk -v p="$shown" '$2 == p { print $1 }' "$kitlist")
    have=$(sha256sum < "$r" 2>/dev/null | cut -c1-64)
    [ -n "$want" ] && [ "$want" = "$have" ] || { same=0; kitnote="; $shown is not the kit's: a kit file may read the environment only as the kit wrote it"; break; }
  done < "$tmp/map"
  [ $same = 1 ] && { allowed="$allowed $extras"; lesson=0; }
fi
# The kit's own functions (common/: nb_*) a lesson's file may call: errors,
# the clock (nb_now_ms: the steps' times), the CUDA helpers, the states and
# options in memory, the threads, the step tables, the CPU's name; nb_main
# from a main*.c.  The others read or write files and the environment
# (nb_src_open, nb_state_write, nb_env_i64, ...) -- the routes the system
# library's list above closes, through the kit's code -- or are the grader's
# (the fence).  Nor may a lesson call the libraries the kit links for its
# own parts (libpng, GLFW, EGL, OpenGL, libmicrohttpd, wslay, nettle,
# libturbojpeg, zlib), the fence's wrappers (__wrap_*, __real_*: an
# allocation the fence does not see), look up CUDA's entry points by
# name, or take the linker's marks of the program's own image (__ehdr_start
# and the like: its headers lead to its symbols, its code can be searched).
kitok="nb_fail nb_errmsg nb_todo nb_now_ms nb_median nb_cpu_model nb_state_alloc nb_state_copy
 nb_state_free nb_options_default nb_threads_start"
kitok=$(tr -s ' \n' '  ' <<< "$kitok")
# ---- the text ----
verify=$top/common/nb_verify.h
syms=$(awk '{ t = t $0 "\n" } END { gsub(/\/[*]([^*]|[*]+[^*\/])*[*]+\//, " ", t); printf "%s", t }' "$verify" |
       grep -oE '\bnb_[A-Za-z0-9_]+[[:space:]]*\(' | tr -d '( \t' | sort -u | tr '\n' ' ')
if [ -z "$syms" ]; then
  printf 'F\t%s: no function names in %s: refused (this check must know them)\n' "$src" "$verify" > "$tmp/f"
  refuse "$tmp/f"
fi
loaders="dlopen dlmopen dlsym dlvsym dladdr dladdr1 dlinfo dl_iterate_phdr"
# files, other processes, programs and raw system calls: a lesson computes
# from the arrays it is given and prints with stdio; with these it could
# read its own program for the grader's code (/proc/self/exe), ask whether
# a sanitizer watches it (/proc/self/maps) or reach the grader's files
system="open open64 openat openat64 __open_2 __open64_2 __openat_2 __openat64_2 creat creat64
 fopen fopen64 freopen freopen64 fdopen read __read_chk pread pread64 __pread_chk __pread64_chk readv preadv
 preadv2 write pwrite pwrite64 writev pwritev mmap mmap64 mprotect syscall readlink readlinkat
 __readlink_chk __readlinkat_chk opendir fdopendir scandir scandir64 nftw ftw unlink unlinkat rename
 renameat symlink symlinkat link linkat mkfifo mkfifoat process_vm_readv process_vm_writev ptrace fork
 vfork clone clone3 __clone execve execv execvp execvpe execl execlp execle fexecve posix_spawn
 posix_spawnp system popen getauxval socket socketpair connect sendfile splice memfd_create setsid kill
 prctl"
system=$(tr -s ' \n' '  ' <<< "$system")
awk -f "$awkf" -v pass=pp -v mode=$kind -v map="$tmp/map" -v syms="$syms $loaders $system" -v libfile="$tmp/libsyms" \
    -v textout="$tmp/text" "${pps[@]}" > "$tmp/pp.out" || { echo "student_lint.sh: awk failed" >&2; exit 2; }
# the lesson's own files, each whole: line directives
mapfile -t mine < <(awk -F'\t' '$3 == "L" { print $4 }' "$tmp/map" | sort -u)
files=()
for f in "${mine[@]}"; do [ -f "$f" ] && files+=("$f"); done
if [ ${#files[@]} -gt 0 ]; then
  awk -f "$awkf" -v pass=raw -v map="$tmp/map" "${files[@]}" >> "$tmp/pp.out" ||
    { echo "student_lint.sh: awk failed" >&2; exit 2; }
fi
grep '^F' "$tmp/pp.out" > "$tmp/f"
# with the sanitizers and without: the same lesson text
if [ -n "$san" ] && [ -f "$tmp/text.1" ] && [ -f "$tmp/text.2" ] && ! cmp -s "$tmp/text.1" "$tmp/text.2"; then
  at=$(diff --old-line-format='%L' --new-line-format='%L' --unchanged-line-format='' \
         "$tmp/text.1" "$tmp/text.2" | head -1 | cut -d: -f1-2)
  printf 'F\t%s: code that differs when built with the sanitizers (#if on __SANITIZE_ADDRESS__ or the like): refused (the grade'"'"'s sanitizers must see the code that is graded)\n' \
    "${at:-$src}" >> "$tmp/f"
fi
[ -s "$tmp/f" ] && refuse "$tmp/f"

# ---- C: compile ----
if [ $kind = c ]; then
  "${cc[@]}" "${sanf[@]}" -c -o "$obj" "$src" || exit $?
fi

# ---- the object's symbols ----
if ! nm -g "$obj" > "$tmp/nm" 2> "$tmp/nm.err"; then
  printf 'F\t%s: nm cannot read %s (%s): refused (this check must read its symbols)\n' \
    "$src" "$obj" "$(head -c 200 "$tmp/nm.err" | tr '\n' ' ')" > "$tmp/f"
  refuse "$tmp/f"
fi
# a sanitized build (-fsanitize= among its flags) refers to its runtime; a
# plain one may not even look for it (a weak __asan_init: is it watched?)
sanitized=0
case " ${cc[*]} $san " in *" -fsanitize="*) sanitized=1 ;; esac
awk -v syms="$syms" -v loaders="$loaders" -v sysfns="$system" -v src="$srcshown" -v locs="$tmp/pp.out" \
    -v lesson=$lesson -v kitok="$kitok" \
    -v allowed="$allowed" -v libs="$tmp/libsyms" -v sanitized=$sanitized -v kitnote="$kitnote" -v srcpath="$src" '
  BEGIN {
    n = split(syms, s, " "); for (i = 1; i <= n; i++) ref[s[i]] = 1
    n = split(loaders, s, " "); for (i = 1; i <= n; i++) dl[s[i]] = 1
    n = split(sysfns, s, " "); for (i = 1; i <= n; i++) os[s[i]] = 1
    while ((getline l < locs) > 0) { split(l, f, "\t"); if (f[1] == "S") at[f[2]] = f[3] }
    n = split(allowed, s, " "); for (i = 1; i <= n; i++) ok[s[i]] = 1
    n = split(kitok, s, " "); for (i = 1; i <= n; i++) kok[s[i]] = 1
    base = src; sub(/.*\//, "", base); mainfile = base ~ /^main.*\.(c|cu)$/
    while ((getline l < libs) > 0) { split(l, f, "\t"); if (!(f[2] in lib) || f[1] != "c") lib[f[2]] = f[1] }
  }
  function first_line(name,   l, n) {   # SRC:LINE where name is first written in SRC, else SRC
    n = 0
    while ((getline l < srcpath) > 0) {
      n++
      if (l !~ /^[ \t]*(\/[*]|[*]|\/\/)/ && l ~ ("(^|[^A-Za-z0-9_])" name "([^A-Za-z0-9_]|$)")) {
        close(srcpath); return src ":" n            # (a line of code, not of a comment)
      }
    }
    close(srcpath)
    return src
  }
  function allowed_lib(name,   base) {
    if (lib[name] == "m") return 1
    if (lib[name] == "omp") return name !~ /^omp_get_wti(me|ck)$/
    if (name in ok) return 1
    base = name; if (sub(/^__/, "", base) && sub(/_chk$/, "", base) && (base in ok)) return 1
    return 0
  }
  { name = $NF; sub(/@.*/, "", name); type = (NF >= 3) ? $(NF - 1) : $1
    undef = (type == "U" || type == "w" || type == "v")
    where = (name in at) ? at[name] : src
    if ((name in ref) || name ~ /^nb_ref_/ || name ~ /^nb_accel_errors/)
      printf "F\t%s: %s %s (common/nb_verify.h: the grade'"'"'s references and verdicts): refused (a lesson computes its own answers)\n",
             where, undef ? "a reference to" : "a definition of", name
    else if (name ~ /^__(asan|ubsan|lsan|msan|tsan|hwasan|dfsan|sanitizer)_/ && !undef)
      printf "F\t%s: a definition of %s (the sanitizers'"'"' interface: their options, their handlers): refused (the grade'"'"'s sanitizers must see this code)\n",
             where, name
    else if ((name in dl) && undef)
      printf "F\t%s: %s (it finds code by name at run time, out of this check'"'"'s sight): refused (a lesson computes its own answers)\n",
             where, name
    else if ((name in os) && undef)
      printf "F\t%s: %s (files, processes or system calls): refused (a lesson computes from its arrays and prints with stdio only)\n",
             where, name
    else if (name ~ /^__(asan|ubsan|lsan|msan|tsan|hwasan|dfsan|sanitizer)_/ && undef && !sanitized)
      printf "F\t%s: a reference to %s in a build without the sanitizers: refused (the code must not ask whether a sanitizer watches it)\n",
             where, name
    else if ((type == "w" || type == "v") && !(name in lib))
      printf "F\t%s: a weak reference to %s (null where no object defines it: it tells the grader'"'"'s programs from the student'"'"'s own): refused (a lesson computes from its arrays alone, the same in the grade as in a run of its own)\n",
             (name in at) ? where : first_line(name), name
    else if (lesson && undef && name ~ /^nb_/ && !(name in kok) && name !~ /^nb_cuda_/ &&
             name !~ /^nb_step[0-9]/ && !(name ~ /^nb_main/ && mainfile))
      printf "F\t%s: %s (the kit'"'"'s own, beyond what a lesson calls: errors, the clock, the CUDA helpers, states and options in memory, the threads): refused (a lesson computes from its arrays alone; the kit'"'"'s other functions read and write files and the environment, or are the grader'"'"'s)\n",
             (name in at) ? where : first_line(name), name
    else if (undef && name ~ /^__(wrap|real)_/)
      printf "F\t%s: %s (the fence'"'"'s wrappers of the allocator): refused (the grade must see every block a lesson allocates)\n",
             (name in at) ? where : first_line(name), name
    else if (lesson && undef && name ~ /^(png_|glfw|egl[A-Z]|gl[A-Z]|MHD_|wslay_|nettle_|tj[A-Z]|gz[a-z]|deflate|inflate|uncompress|compress2?$|XOpen|xcb_|gnutls_|cuGetProcAddress|cudaGetDriverEntryPoint|cudaGraphDebugDotPrint)/)
      printf "F\t%s: %s (a library the kit links for its own parts -- images, windows, the web view -- or a CUDA entry point found by name): refused (a lesson computes from its arrays alone)\n",
             (name in at) ? where : first_line(name), name
    else if (lesson && undef && name ~ /^(__ehdr_start|__executable_start|__etext|_etext|etext|_edata|edata|__bss_start|_end|end|__data_start|data_start|__(pre)?init_array_(start|end)|__fini_array_(start|end)|__start_.*|__stop_.*)$/)
      printf "F\t%s: %s (the linker'"'"'s mark of the program'"'"'s own image: its ELF header, where its code and data begin and end): refused (a lesson computes from its arrays alone; the image can be searched for the grader'"'"'s code)\n",
             (name in at) ? where : first_line(name), name
    else if (undef && (name in lib) && !allowed_lib(name))
      printf "F\t%s: %s (the system library'"'"'s, beyond memory, strings, math, OpenMP and printing: the environment, the clock, the process, how it ends): refused (a lesson computes from its arrays alone, the same in the grade as in a run of its own%s)\n",
             where, name, kitnote
  }' "$tmp/nm" > "$tmp/f"
[ -s "$tmp/f" ] && refuse "$tmp/f"
exit 0
