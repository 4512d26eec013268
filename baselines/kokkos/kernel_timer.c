/* A Kokkos tools library that prints the wall time of every Kokkos kernel:
 *
 *   skylight-kokkos-kernel type=reduce name="noflagOCC_solver" seconds=1.234e-01
 *
 * Load it with KOKKOS_TOOLS_LIBS=<path>/libkernel_timer.so. Kokkos fences the
 * device before each begin and end callback while a tool is loaded (a tool
 * asks for global fencing unless it says otherwise, and this one does not),
 * so begin-to-end is the kernel alone: launch, execution and, for a
 * reduction into a host value, its copy back; no host set-up and no
 * host-to-device copies. Written for Skylight's baselines from the Kokkos
 * tools C interface (callback names and signatures only). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Kernels open at once (Kokkos does not nest kernels; a few suffice). */
#define OPEN 64

static struct {
    char name[128];
    const char *type;
    double start;
} open_kernels[OPEN];
static uint64_t next_id;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void begin(const char *type, const char *name, uint64_t *id) {
    *id = next_id++;
    int slot = (int)(*id % OPEN);
    snprintf(open_kernels[slot].name, sizeof open_kernels[slot].name, "%s", name);
    open_kernels[slot].type = type;
    open_kernels[slot].start = now();
}

static void end(uint64_t id) {
    double t = now();
    int slot = (int)(id % OPEN);
    /* A quote in a kernel's name would end the field early: drop it. */
    for (char *c = open_kernels[slot].name; *c; c++)
        if (*c == '"') *c = '\'';
    printf("skylight-kokkos-kernel type=%s name=\"%s\" seconds=%.6e\n", open_kernels[slot].type,
           open_kernels[slot].name, t - open_kernels[slot].start);
    fflush(stdout);
}

void kokkosp_init_library(int seq, uint64_t version, uint32_t ndevices, void *devices) {
    (void)seq, (void)ndevices, (void)devices;
    printf("skylight-kokkos-timer loaded (Kokkos tools interface %llu)\n",
           (unsigned long long)version);
    fflush(stdout);
}

void kokkosp_finalize_library(void) {}

void kokkosp_begin_parallel_for(const char *name, uint32_t dev, uint64_t *id) {
    (void)dev;
    begin("for", name, id);
}
void kokkosp_end_parallel_for(uint64_t id) { end(id); }

void kokkosp_begin_parallel_reduce(const char *name, uint32_t dev, uint64_t *id) {
    (void)dev;
    begin("reduce", name, id);
}
void kokkosp_end_parallel_reduce(uint64_t id) { end(id); }

void kokkosp_begin_parallel_scan(const char *name, uint32_t dev, uint64_t *id) {
    (void)dev;
    begin("scan", name, id);
}
void kokkosp_end_parallel_scan(uint64_t id) { end(id); }
