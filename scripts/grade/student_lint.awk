# scripts/grade/student_lint.awk -- the text checks of scripts/grade/student_lint.sh
# (which documents the rules).  Two passes:
#
# -v pass=pp: the preprocessor's output of one lesson source (gcc -E, or
#   nvcc's kept .ii files: every device pass and the host pass), read
#   through its line markers.  -v map=FILE: one line per file the markers
#   name: "marker name<TAB>name to print<TAB>class<TAB>real path", class L
#   (a file of the kit tree, or of no toolchain: the student's to write),
#   F (the toolchain's: CUDA, a library named by -I, /usr) or P (a
#   pseudo-file: <built-in>, the working directory).  The text of class L
#   files is the lesson's, and is checked.  -v mode=c|cu.  -v syms="a b":
#   names whose first place in the lesson's text is printed ("S<TAB>name
#   <TAB>file:line", for the object checks); so are those of -v libfile
#   (lines "lib<TAB>name": the system libraries' names).  -v textout=PREFIX: the
#   lesson's text of the Kth file read, "file:line:text" per line, to
#   PREFIX.K (compared by the script between a build with the sanitizers
#   and one without).  Findings: "F<TAB>file:line: what: refused (why)".
#
# -v pass=raw: the lesson's source files themselves, each whole: a line
#   directive (#line, "# N file", #embed), which would make the markers lie,
#   is refused wherever it is: comments and line splices are read as the
#   preprocessor reads them.

function finding(where, what, why,   key) {
    key = where ": " what
    if (key in seen) return
    seen[key] = 1
    print "F\t" where ": " what ": refused (" why ")"
}
function here() { return disp[cur] ":" ln }
function ext_of(p,   b) {
    b = p
    sub(/.*\//, "", b)
    if (b !~ /\./) return ""
    sub(/.*\./, "", b)
    return tolower(b)
}
# the bytes a string literal's contents stand for (escapes decoded; enough
# to read an assembler directive spelled with escapes)
function decode(s,   out, c, i, n, v, d) {
    out = ""
    n = length(s)
    for (i = 1; i <= n; i++) {
        c = substr(s, i, 1)
        if (c != "\\" || i == n) { out = out c; continue }
        c = substr(s, ++i, 1)
        if (c == "x") {
            v = 0
            while (i < n && index("0123456789abcdefABCDEF", substr(s, i + 1, 1))) {
                d = index("0123456789abcdef", tolower(substr(s, ++i, 1))) - 1
                v = (v * 16 + d) % 256
            }
            out = out sprintf("%c", v)
        } else if (c ~ /[0-7]/) {
            v = c + 0
            if (i < n && substr(s, i + 1, 1) ~ /[0-7]/) v = v * 8 + substr(s, ++i, 1)
            if (i < n && substr(s, i + 1, 1) ~ /[0-7]/) v = v * 8 + substr(s, ++i, 1)
            out = out sprintf("%c", v % 256)
        } else if (c == "u" || c == "U") {
            d = (c == "u") ? 4 : 8
            v = 0
            while (d-- > 0 && i < n && index("0123456789abcdefABCDEF", substr(s, i + 1, 1)))
                v = v * 16 + index("0123456789abcdef", tolower(substr(s, ++i, 1))) - 1
            out = out (v < 128 ? sprintf("%c", v) : "?")
        } else if (c == "n") out = out "\n"
        else if (c == "t") out = out "\t"
        else out = out c
    }
    return out
}
function asm_done() {
    if (tolower(asm_str) ~ /\.(incbin|include)/)
        finding(asm_at, "inline assembly that reads a file (.incbin, .include)",
                "a lesson file includes headers only")
    asm_depth = 0; asm_str = ""
}
# where a name of syms is first written: in a file of the step, else in a
# kit header (its declaration in common/nb_verify.h)
function at_name(w) {
    if (disp[cur] !~ /^common\//) { if (!(w in symat)) symat[w] = here() }
    else if (!(w in symkit)) symkit[w] = here()
}
# one token of the lesson's text: kind I (identifier), S (string), N, C, P
function token(kind, t, body,   norm, w) {
    if (kind == "I") {
        if ((t in want) || (t in lwant)) at_name(t)
        norm = t
        sub(/^__/, "", norm); sub(/__$/, "", norm)
        if (t == "__attribute__" || t == "__attribute") attr_pending = 1
        else if (attr_pending && attr_depth == 0) attr_pending = 0
        if (t ~ /^__(asan|ubsan|lsan|msan|tsan|hwasan|dfsan|sanitizer)_/)
            finding(here(), "the sanitizers' interface (" t ")", "the grade's sanitizers must see this code")
        if ((attr_depth > 0 || brk_depth > 0) && norm == "optimize")
            finding(here(), "the attribute " t, "the grade builds this code with the kit's flags")
        if (norm == "asm") {
            if (mode == "c")
                finding(here(), "inline assembly (" t ")", "the grade's sanitizers must see this code")
            asm_pending = 1; asm_at = here(); asm_str = ""
        } else if (asm_pending && asm_depth == 0 && norm !~ /^(volatile|goto|inline)$/) asm_pending = 0
        if (t == "_Pragma") finding(here(), "_Pragma", "the grade builds this code with the kit's flags")
    } else if (kind == "S") {
        if (asm_depth > 0) asm_str = asm_str decode(body)
        for (w in want) if (index(body, w)) at_name(w)
        if (match(body, /__(asan|ubsan|lsan|msan|tsan|hwasan|dfsan|sanitizer)_[A-Za-z0-9_]*/))
            finding(here(), "the sanitizers' interface (\"" substr(body, RSTART, RLENGTH) "\")",
                    "the grade's sanitizers must see this code")
    } else if (kind == "P") {
        if (t == "(") {
            if (attr_pending && attr_depth == 0) { attr_depth = 1; attr_pending = 0 }
            else if (attr_depth > 0) attr_depth++
            if (asm_pending && asm_depth == 0) { asm_depth = 1; asm_pending = 0 }
            else if (asm_depth > 0) asm_depth++
        } else if (t == ")") {
            if (attr_depth > 0) attr_depth--
            if (asm_depth > 0 && --asm_depth == 0) asm_done()
        } else if (t == "[") {
            if (prev == "[" && brk_depth == 0) brk_depth = 2
            else if (brk_depth > 0) brk_depth++
        } else if (t == "]") {
            if (brk_depth > 0) brk_depth--
        } else if (asm_pending && asm_depth == 0) asm_pending = 0
    } else if (asm_pending && asm_depth == 0) asm_pending = 0
    prev = (kind == "P") ? t : kind
}
function scan(s,   m, q, w, n, body, parts, len) {
    if (s ~ /(^|[^A-Za-z0-9_])_*(no_sanitize|no_address_safety_analysis|disable_sanitizer_instrumentation)/) {
        match(s, /_*(no_sanitize[A-Za-z0-9_]*|no_address_safety_analysis|disable_sanitizer_instrumentation)_*/)
        finding(here(), substr(s, RSTART, RLENGTH), "the grade's sanitizers must see this code")
    }
    if (s ~ /(^|[^A-Za-z0-9_])_*optnone/)
        finding(here(), "optnone", "the grade builds this code with the kit's flags")
    if (s ~ /^[ \t]*#[ \t]*pragma[ \t]/) {
        m = s
        sub(/^[ \t]*#[ \t]*pragma[ \t]+/, "", m)
        w = m; sub(/[(].*$/, "", w)
        n = split(w, parts, /[ \t]+/)
        w = "#pragma " parts[1] ((n > 1) ? " " parts[2] : "")
        if (m ~ /^GCC[ \t]+(optimize|reset_options)/ || m ~ /^optimize/ || m ~ /^clang[ \t]+optimize/)
            finding(here(), w, "the grade builds this code with the kit's flags")
        if (m ~ /^clang[ \t]+attribute/)
            finding(here(), "#pragma clang attribute", "the grade's sanitizers must see this code")
    }
    while (s != "") {
        if (in_raw) {                                # inside a C++ raw string
            q = index(s, raw_close)
            if (q == 0) { raw_body = raw_body s "\n"; return }
            raw_body = raw_body substr(s, 1, q - 1)
            s = substr(s, q + length(raw_close))
            in_raw = 0
            token("S", "", raw_body)
            continue
        }
        if (match(s, /^[ \t\r\f\v]+/)) { s = substr(s, RLENGTH + 1); continue }
        if (match(s, /^(u8|u|U|L)?R"[^ ()\\\t"]*\(/)) {
            q = substr(s, 1, RLENGTH - 1)
            sub(/^[^"]*"/, "", q)
            raw_close = ")" q "\""
            in_raw = 1; raw_body = ""
            s = substr(s, RLENGTH + 1)
            continue
        }
        # (token() may match() again: the length is kept first)
        if (match(s, /^(u8|u|U|L)?"([^"\\]|\\.)*"/)) {
            len = RLENGTH
            body = substr(s, 1, len)
            sub(/^[^"]*"/, "", body); sub(/"$/, "", body)
            token("S", "", body)
        } else if (match(s, /^(u8|u|U|L)?'([^'\\]|\\.)*'/)) { len = RLENGTH; token("C", "", "") }
        else if (match(s, /^[A-Za-z_][A-Za-z0-9_]*/)) { len = RLENGTH; token("I", substr(s, 1, len), "") }
        else if (match(s, /^\.?[0-9]([0-9A-Za-z_.]|[eEpP][-+])*/)) { len = RLENGTH; token("N", "", "") }
        else { len = 1; token("P", substr(s, 1, 1), "") }
        s = substr(s, len + 1)
    }
}

BEGIN {
    if (pass == "pp") {
        while ((getline l < map) > 0) {
            split(l, f, "\t")
            disp[f[1]] = f[2]; cls[f[1]] = f[3]; real[f[1]] = f[4]
        }
        n = split(syms, f, " ")
        for (i = 1; i <= n; i++) want[f[i]] = 1
        while (libfile != "" && (getline l < libfile) > 0) {   # the system libraries' names
            split(l, f, "\t"); lwant[f[2]] = 1               # (where each is written)
        }
        split("h hh hpp hxx cuh inl", f, " ")
        for (i in f) header[f[i]] = 1
        split("c cc cp cpp cxx c++ cu i ii s sx asm m mm f f90 o a so bin", f, " ")
        for (i in f) source[f[i]] = 1
        source["s"] = 1
    } else {
        while ((getline l < map) > 0) { split(l, f, "\t"); rdisp[f[4]] = f[2] }
        ws = "[ \t" sprintf("%c%c", 11, 12) "]"
        cm = "/[*]([^*]|[*]+[^*/])*[*]+/"
        pre = "(" ws "|" cm ")*"
        directive = "(^|\n)" pre "(#|%:|[?][?]=)" pre "(line|[0-9]|embed)"
    }
}

# ---- pass pp ----
pass == "pp" && FNR == 1 {
    nfile++
    lesson = 0; cur = ""; ln = 0
    attr_pending = attr_depth = brk_depth = asm_pending = asm_depth = 0
    in_raw = 0; prev = ""
    out = (textout != "") ? textout "." nfile : ""
}
pass == "pp" && /^# [0-9]+ "/ {
    rest = $0
    sub(/^# [0-9]+ "/, "", rest)
    name = rest; sub(/"[^"]*$/, "", name)
    flags = rest; sub(/^.*"/, "", flags)
    num = $2 + 0
    if (flags ~ / 1( |$)/ && cls[name] != "P") {      # an #include (or -include) enters name
        e = ext_of(name); re = ext_of(real[name])
        bad = ""
        if ((e in source) || (re in source)) bad = "an #include of a source file"
        else if (cls[name] == "L" && !((e in header) && (re in header))) bad = "an #include of a file that is not a header"
        if (bad != "")
            finding((cls[cur] == "L") ? here() : disp[name], bad " (" disp[name] ")",
                    "a lesson file includes headers only")
    }
    # (a lesson file's text is read even where the markers call it a system
    # header's: gcc marks so the expansion of a system macro, whose
    # arguments -- __CONCAT(no_, sanitize) -- are the student's)
    cur = name; ln = num
    lesson = (cls[name] == "L")
    next
}
pass == "pp" {
    if (lesson) {
        if (out != "") print disp[cur] ":" ln ":" $0 > out
        scan($0)
    }
    ln++
}

# ---- pass raw ----
pass == "raw" && FNR == 1 { if (rf != "") rawcheck(); rf = FILENAME; text = ""; nl = 0 }
pass == "raw" {
    starts[++nl] = length(text) + 1
    line = $0
    if (line ~ /\\[ \t]*$/) { sub(/\\[ \t]*$/, "", line); text = text line }   # a line splice
    else text = text line "\n"
}
function rawcheck(   s, off, where, i, kw) {
    s = text; off = 0
    while (match(s, directive)) {
        kw = substr(s, RSTART, RLENGTH)
        where = off + RSTART + RLENGTH - 1
        for (i = nl; i > 1 && starts[i] > where; i--) ;
        sub(/^.*[^a-z0-9]/, "", kw)
        finding(((rf in rdisp) ? rdisp[rf] : rf) ":" i,
                (kw == "embed") ? "#embed" : "a line directive (#line, # N \"file\")",
                (kw == "embed") ? "a lesson file includes headers only" : "the grade's checks must see each line where it is")
        off += RSTART + RLENGTH - 1
        s = substr(s, RSTART + RLENGTH)
    }
}
END {
    if (pass == "raw" && rf != "") rawcheck()
    if (pass == "pp") {
        for (w in symat) print "S\t" w "\t" symat[w]
        for (w in symkit) if (!(w in symat)) print "S\t" w "\t" symkit[w]
    }
}
