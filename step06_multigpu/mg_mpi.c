/* mg_mpi.c -- step06_multigpu, beside the lesson: the MPI launch, one
 * process per GPU, started by mpirun (mg_mpi_main(), mg_launch.h; the
 * program main_mpi.c calls it with step06's table, the tuned build's
 * nbody_tuned_mpi with its own)
 *   mpirun -np 4 step06_multigpu/nbody_mpi -n 5000000 --bench
 * Rank r drives CUDA device r of its host (its rank among the processes of
 * that host).  Rank 0 runs the program (nb_main: options, bodies, output);
 * the other ranks do what its calls ask (mg_follow).  The NCCL id goes from
 * rank 0 to the others with MPI_Bcast; the GPU code is the same as in the
 * one-process mode (mg.c).  Refused cleanly, before any GPU work:
 *   started without mpirun                    exit 2 (use step06_multigpu/nbody)
 *   more processes on a host than it has GPUs exit 2 (rank, host, counts)
 *   no usable GPU                             exit 77
 * A GPU failure on any rank prints one line from that rank and stops every
 * process (MPI_Abort with exit status 3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <unistd.h>
#include <mpi.h>
#include "mg_launch.h"

#define MSG_LEN 512

static int mpi_bcast(void *buf, size_t bytes)
{
    char *p = (char *)buf;
    while (bytes > 0) {             /* MPI counts are int: 1 GiB at a time */
        int part = bytes > (1u << 30) ? (1 << 30) : (int)bytes;
        if (MPI_Bcast(p, part, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
        p += part;
        bytes -= (size_t)part;
    }
    return 0;
}

static int mpi_allgather(const void *mine, void *all, size_t bytes)
{
    if (bytes > (1u << 30)) return -1;
    return MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, MPI_COMM_WORLD) ==
           MPI_SUCCESS ? 0 : -1;
}

static void mpi_abort_all(int code)
{
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    _exit(code);
}

/* Started by mpirun (Open MPI, or a PMI/PMIx launcher such as srun)? */
static int under_launcher(void)
{
    const char *keys[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE" };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const char *v = getenv(keys[k]);
        if (v && *v) return 1;
    }
    return 0;
}

static int asks_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") || !strcmp(argv[i], "--version"))
            return 1;
    return 0;
}

int mg_mpi_main(int argc, char **argv, const nb_step *step, double theta, const char *one_process)
{
    mg_nccl_env();                  /* NVLink multicast off before any NCCL call */
    if (!under_launcher()) {
        if (asks_help(argc, argv)) return nb_main_theta(argc, argv, step, theta);
        char prog[256];
        snprintf(prog, sizeof prog, "%s", argv[0]);
        fprintf(stderr, "%s: %s runs one process per GPU: start it with mpirun -np P %s ...; for "
                "one process driving every GPU use %s\n", step->name, basename(prog), argv[0],
                one_process);
        return NB_EXIT_USAGE;
    }
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1, lrank = 0, lsize = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &lrank);
    MPI_Comm_size(local, &lsize);
    MPI_Comm_free(&local);

    /* Every rank checks its GPU; all agree on the outcome before any NCCL
     * call, so that no rank waits for one that has left. */
    char host[256] = "?", msg[MSG_LEN] = "";
    gethostname(host, sizeof host - 1);
    int gpus = mg_device_count(), code = 0;
    if (gpus < 1) {
        code = NB_EXIT_NODEV;
        snprintf(msg, sizeof msg, "no usable CUDA device on host %s", host);
    } else if (lrank >= gpus) {
        code = NB_EXIT_USAGE;
        snprintf(msg, sizeof msg, "rank %d is process %d of %d on host %s, which has %d GPU%s: "
                 "start at most %d processes per host (one per GPU)", rank, lrank + 1, lsize, host,
                 gpus, gpus == 1 ? "" : "s", gpus);
    }
    int *codes = (int *)calloc((size_t)size, sizeof *codes);
    if (!codes) mpi_abort_all(NB_EXIT_RUNTIME);
    MPI_Allgather(&code, 1, MPI_INT, codes, 1, MPI_INT, MPI_COMM_WORLD);
    int first = -1;
    for (int r = 0; r < size; r++)
        if (codes[r] && first < 0) first = r;
    if (first >= 0) {
        int rc0 = codes[first];
        MPI_Bcast(msg, MSG_LEN, MPI_CHAR, first, MPI_COMM_WORLD);
        if (rank == 0) fprintf(stderr, "%s: rank %d: %s\n", step->name, first, msg);
        free(codes);
        MPI_Finalize();
        return rc0;
    }
    free(codes);

    mg_team team = { rank, size, lrank, mpi_bcast, mpi_allgather, mpi_abort_all };
    mg_set_team(&team);
    int rc;
    if (rank == 0) rc = mg_quit(nb_main_theta(argc, argv, step, theta));
    else rc = mg_follow();
    MPI_Finalize();
    return rc;
}
