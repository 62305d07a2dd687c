/* A stand-in benchmark for the runner's tests: the real harness (runtime/harness.h) around
 * work that only sleeps or spins, logging when it sets up and when it holds the GPU lock.
 *
 * Its name (argv[0]'s base name, LAYER-TYPE-IMPL) is its bench column. The environment says
 * what it does: STANDIN_LOG (append "NAME EVENT MICROSECONDS PID" lines), STANDIN_BACKEND (cpu
 * or cuda, default cuda), STANDIN_SETUP_MS, STANDIN_HOLD_MS (default 50: sleep while timing),
 * STANDIN_SPIN_MS (burn CPU while timing instead: the busy-machine test), STANDIN_EXIT (exit
 * with this status before printing a row), STANDIN_RUN_MS (time with the harness's own loop,
 * bh_measure, each run sleeping this long and logging "run"). */
#define _GNU_SOURCE
#include "../runtime/harness.h"

static const char *name;
static FILE *logf_;

static void logev(const char *ev)
{
    if (!logf_)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    fprintf(logf_, "%s %s %lld %d\n", name, ev, (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000, (int)getpid());
    fflush(logf_);
}

static int env_ms(const char *var, int dflt)
{
    const char *v = getenv(var);
    return v && *v ? atoi(v) : dflt;
}

static enum bh_status setup(void *state, const struct bh_opts *o, struct bh_result *r)
{
    (void)state;
    (void)o;
    logev("setup_start");
    usleep((useconds_t)env_ms("STANDIN_SETUP_MS", 0) * 1000);
    snprintf(r->device, sizeof(r->device), "stand-in");
    snprintf(r->lib, sizeof(r->lib), "none");
    r->threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    logev("setup_end");
    if (getenv("STANDIN_EXIT"))
        exit(atoi(getenv("STANDIN_EXIT")));
    return BH_OK;
}

static double run(void *state, struct bh_result *r)
{
    (void)state;
    (void)r;
    int ms = env_ms("STANDIN_RUN_MS", 0);
    if (!ms)
        return 1.0;
    logev("run");
    usleep((useconds_t)ms * 1000);
    return ms * 1e3;
}

static void measure(void *state, const struct bh_opts *o, struct bh_result *r)
{
    (void)state;
    (void)o;
    logev("hold_start");
    int spin = env_ms("STANDIN_SPIN_MS", 0);
    if (spin) {
        volatile double x = 0;
        double t0 = bh_now_us();
        while (bh_now_us() - t0 < spin * 1e3)
            x += 1;
    } else {
        usleep((useconds_t)env_ms("STANDIN_HOLD_MS", 50) * 1000);
    }
    for (int i = 0; i < 3; i++)
        bh_add_time(r, 10.0 + i);
    snprintf(r->method, sizeof(r->method), "%s", !strcmp(getenv("STANDIN_BACKEND") ? getenv("STANDIN_BACKEND") : "", "cpu") ? "cpu" : "blocking");
    logev("hold_end");
}

int main(int argc, char **argv)
{
    name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (getenv("STANDIN_LOG"))
        logf_ = fopen(getenv("STANDIN_LOG"), "a");
    char layer[64];
    snprintf(layer, sizeof(layer), "%.*s", (int)strcspn(name, "-"), name);
    const char *backend = getenv("STANDIN_BACKEND") ? getenv("STANDIN_BACKEND") : "cuda";
    struct bh_bench b = {name, layer, "standin", "Relu", backend, "a", "f32", 1, 1, NULL, setup, run, NULL, NULL,
                         env_ms("STANDIN_RUN_MS", 0) ? NULL : measure};
    return bh_main(argc, argv, &b);
}
