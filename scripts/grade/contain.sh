# scripts/grade/contain.sh -- nb_contained, shared by mutants.sh and grade_class.sh
# (sourced, not run).
#
# nb_contained CMD...: run CMD in a PID namespace of its own where the
# machine allows one (as root, with util-linux's unshare), beside a canary
# process.  Student code runs in the grade's box (tests/nb_sandbox.h), from
# which nothing outside can be signalled; code that got out of it and
# killed every process it could reach (kill(-1, SIGKILL) as root) would
# kill the canary -- and, without the namespace, the caller and whatever
# started it (a CI run, the instructor's session).  NB_CONTAIN_HIDE (':'-
# separated directories) puts an empty read-only file system over each of
# them for CMD and all it starts (the build of the student's code too: an
# #include or .incbin of the instructor's answers then finds nothing).
# Returns CMD's exit status, 198 if a directory could not be hidden, or 199
# if the canary was killed.  Elsewhere CMD runs as it is.
NB_PIDNS=()
if [ "$(id -u)" = 0 ] && unshare --pid --fork --kill-child --mount-proc true 2>/dev/null; then
  NB_PIDNS=(unshare --pid --fork --kill-child --mount-proc)
fi
nb_contained() {
  if [ ${#NB_PIDNS[@]} = 0 ]; then "$@"; return; fi
  # the canary's own status: SIGTERM (143) is ours; anything else killed it
  "${NB_PIDNS[@]}" bash -c 'IFS=: read -ra hide <<< "${NB_CONTAIN_HIDE:-}"
                            for d in "${hide[@]}"; do
                              [ -d "$d" ] || continue
                              mount -t tmpfs -o ro,nosuid,nodev,noexec,size=4k,mode=0555 tmpfs "$d" || {
                                echo "nb_contained: cannot hide $d" >&2; exit 198; }
                            done
                            sleep 1000000 & c=$!; "$@"; rc=$?
                            kill -TERM $c 2>/dev/null; wait $c; [ $? = 143 ] || exit 199; exit $rc' nb_contained "$@"
}
