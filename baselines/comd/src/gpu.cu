// The GPU driver: buffers, the force and step runs of every launch
// configuration, their validation against the CPU reference and their
// timing with CUDA events.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "port.h"

// Any CUDA error ends the run with a non-zero exit (lines already printed stay).
#define CK(call)                                                                                  \
    do {                                                                                          \
        const cudaError_t e_ = (call);                                                            \
        if (e_ != cudaSuccess) {                                                                  \
            std::printf("comd-port CUDA error: %s at %s:%d: %s\n", #call, __FILE__, __LINE__,    \
                        cudaGetErrorString(e_));                                                  \
            std::fflush(stdout);                                                                  \
            std::exit(3);                                                                         \
        }                                                                                         \
    } while (0)

namespace {

template <typename T>
T* dalloc(size_t n) {
    T* p = nullptr;
    CK(cudaMalloc(&p, n * sizeof(T)));
    return p;
}

template <typename T>
void upload(T* d, const std::vector<T>& h) {
    CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}

template <typename T>
std::vector<T> download(const T* d, size_t n) {
    std::vector<T> h(n);
    CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

// All-ones bytes: NaN in f32 and f64, -1 as an index.
template <typename T>
void poison(T* d, size_t n) {
    CK(cudaMemset(d, 0xFF, n * sizeof(T)));
}

// The device state of one problem in precision R.
template <typename R>
struct Device {
    Params<R> p;
    size_t n, ncells;
    R *pos, *vel, *frc, *epot;
    int *counts, *cell, *place, *offsets, *sid;
    P4<R>* spos;
    void* scan_tmp = nullptr;
    size_t scan_bytes = 0;
    cudaStream_t stream;

    explicit Device(const md::System& s) : p(make_params<R>(s)), n(s.atoms()), ncells(s.ncells()) {
        pos = dalloc<R>(3 * n);
        vel = dalloc<R>(3 * n);
        frc = dalloc<R>(3 * n);
        epot = dalloc<R>(n);
        // One count past the last cell stays 0, so the scan ends in the atom count.
        counts = dalloc<int>(ncells + 1);
        offsets = dalloc<int>(ncells + 1);
        cell = dalloc<int>(n);
        place = dalloc<int>(n);
        sid = dalloc<int>(n);
        spos = dalloc<P4<R>>(n);
        CK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, offsets, int(ncells + 1)));
        scan_tmp = dalloc<char>(scan_bytes);
        // A blocking stream: the plain cudaMemcpy and cudaMemset calls order with it.
        CK(cudaStreamCreate(&stream));
    }
    ~Device() {
        for (void* b : {(void*)pos, (void*)vel, (void*)frc, (void*)epot, (void*)counts, (void*)offsets,
                        (void*)cell, (void*)place, (void*)sid, (void*)spos, scan_tmp})
            CK(cudaFree(b));
        CK(cudaStreamDestroy(stream));
    }

    // Uploads the start; poisons everything a run writes but does not read.
    void load(const md::System& s) {
        upload(pos, to_soa<R>(s.pos));
        upload(vel, to_soa<R>(s.vel));
        upload(frc, to_soa<R>(s.frc));
        poison(epot, n);
        poison(counts, ncells + 1);
        poison(offsets, ncells + 1);
        poison(cell, n);
        poison(place, n);
        poison(sid, n);
        poison(spos, n);
        CK(cudaDeviceSynchronize());
    }

    // One run captured as a CUDA graph: its launches reach the GPU together,
    // as Skylight's dispatches do in one command buffer, so a timed step
    // holds no gaps of host launch latency between its kernels.
    cudaGraphExec_t capture(const std::function<void()>& launches) {
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        launches();
        CK(cudaStreamEndCapture(stream, &graph));
        CK(cudaGraphInstantiateWithFlags(&exec, graph, 0));
        CK(cudaGraphDestroy(graph));
        return exec;
    }

    // Clear, (kick and drift,) bin, scan, gather.
    template <bool MOVE>
    void redistribute(int wg) {
        const int blocks = int((n + wg - 1) / wg);
        CK(cudaMemsetAsync(counts, 0, (ncells + 1) * sizeof(int), stream));
        advance_bin<R, MOVE><<<blocks, wg, 0, stream>>>(p, pos, vel, frc, counts, cell, place);
        CK(cudaGetLastError());
        CK(cub::DeviceScan::ExclusiveSum(scan_tmp, scan_bytes, counts, offsets, int(ncells + 1), stream));
        gather<R><<<blocks, wg, 0, stream>>>(p, pos, cell, place, offsets, spos, sid);
        CK(cudaGetLastError());
    }

    template <bool KICK>
    void force(bool cell_mapping, int wg) {
        if (!cell_mapping) {
            force_atom<R, KICK><<<int((n + wg - 1) / wg), wg, 0, stream>>>(p, spos, sid, offsets, frc, epot, vel);
        } else if (wg == 64) {
            force_cell<R, KICK, 64><<<int(ncells), 64, 0, stream>>>(p, spos, sid, offsets, frc, epot, vel);
        } else if (wg == 128) {
            force_cell<R, KICK, 128><<<int(ncells), 128, 0, stream>>>(p, spos, sid, offsets, frc, epot, vel);
        } else if (wg == 256) {
            force_cell<R, KICK, 256><<<int(ncells), 256, 0, stream>>>(p, spos, sid, offsets, frc, epot, vel);
        } else {
            std::printf("comd-port: the cell mapping is built for 64, 128 and 256 threads, not %d\n", wg);
            std::exit(2);
        }
        CK(cudaGetLastError());
    }

    // One velocity Verlet step: kick + drift + bin, scan, gather, force + kick.
    void step(bool cell_mapping, int wg) {
        redistribute<true>(wg);
        force<true>(cell_mapping, wg);
    }
};

// Keeps the GPU busy for about `ns` nanoseconds, so the host has queued the
// start event, the run and the stop event before the start event is reached:
// a sample then holds no wait for the host's launch.
__global__ void spin(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

// Warm-up of at least warmup_s GPU seconds (the clocks idle low until the
// GPU has been busy a while), then event-timed samples of
// o.runs_per_sample back-to-back runs each, their mean per run.
std::vector<double> time_runs(const std::function<void()>& run, cudaStream_t stream, const Options& o) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    float ms = 0;
    double warm = 0;
    for (int batch = 1; warm < o.warmup_s; batch = std::min(2 * batch, 4096)) {
        CK(cudaEventRecord(a, stream));
        for (int k = 0; k < batch; ++k) run();
        CK(cudaEventRecord(b, stream));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
        warm += ms * 1e-3;
    }
    std::vector<double> samples;
    for (int s = 0; s < o.samples; ++s) {
        spin<<<1, 1, 0, stream>>>(200000);
        CK(cudaGetLastError());
        CK(cudaEventRecord(a, stream));
        for (int r = 0; r < o.runs_per_sample; ++r) run();
        CK(cudaEventRecord(b, stream));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
        samples.push_back(ms * 1e-3 / o.runs_per_sample);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return samples;
}

template <typename R>
std::vector<double> epot_of(const Device<R>& d) {
    return widen(download(d.epot, d.n));
}

// Every configuration of both kernels for one problem; returns the failures.
template <typename R>
int run_problem(const Problem& pr, const Options& o, const char* prec) {
    constexpr bool f32 = sizeof(R) == 4;
    Device<R> d(pr.start);
    int failed = 0;
    for (const auto& kernel : o.kernels) {
        for (const auto& mapping : o.mappings) {
            for (int wg : o.wgs) {
                const bool cell = mapping == "cell";
                const std::string config = mapping + "/wg" + std::to_string(wg);
                d.load(pr.start);
                Check c;
                cudaGraphExec_t graph;
                if (kernel == "force") {
                    // The cell lists of the start, built once, untimed; then the
                    // force kernel alone over poisoned outputs.
                    d.template redistribute<false>(wg);
                    CK(cudaStreamSynchronize(d.stream));
                    poison(d.frc, 3 * d.n);
                    graph = d.capture([&] { d.template force<false>(cell, wg); });
                } else {
                    graph = d.capture([&] { d.step(cell, wg); });
                }
                const auto run = [&] { CK(cudaGraphLaunch(graph, d.stream)); };
                run();
                CK(cudaStreamSynchronize(d.stream));
                if (kernel == "force") {
                    c = check_force(pr, f32, from_soa(download(d.frc, 3 * d.n)), epot_of(d));
                } else {
                    c = check_step(pr, f32, from_soa(download(d.pos, 3 * d.n)),
                                   from_soa(download(d.vel, 3 * d.n)), epot_of(d));
                }
                // The step's later runs go on from where the last one ended.
                const std::vector<double> samples = time_runs(run, d.stream, o);
                CK(cudaGraphExecDestroy(graph));
                print_line(kernel.c_str(), prec, config, d.n, samples, o.runs_per_sample, c);
                failed += c.passed ? 0 : 1;
            }
        }
    }
    return failed;
}

// The force kernel on CoMD's own start (a perfect lattice): its potential
// energy per atom against CoMD's step-0 figure.
template <typename R>
int comd_check(md::System lattice, const char* prec) {
    constexpr bool f32 = sizeof(R) == 4;
    if (f32) md::round_to_f32(lattice);
    Device<R> d(lattice);
    d.load(lattice);
    d.template redistribute<false>(128);
    d.template force<false>(false, 128);
    CK(cudaStreamSynchronize(d.stream));
    double pe = 0;
    for (double e : epot_of(d)) pe += e;
    const Check c = check_comd_pe(pe / double(d.n), f32);
    std::printf("comd-port check init=comd atoms=%zu precision=%s gpu: %s: error %.3e tolerance %.1e passed=%d\n",
                d.n, prec, c.detail.c_str(), c.max_error, c.tolerance, c.passed ? 1 : 0);
    return c.passed ? 0 : 1;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int run_gpu(const Options& o) {
    int dev = 0;
    cudaDeviceProp prop;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    int rt = 0, drv = 0;
    CK(cudaRuntimeGetVersion(&rt));
    CK(cudaDriverGetVersion(&drv));
    std::printf("comd-port device=\"%s\" sm_%d%d runtime=%d driver=%d seed=%llu\n", prop.name, prop.major,
                prop.minor, rt, drv, (unsigned long long)o.seed);
    int failed = 0;
    for (int n : o.sizes) {
        md::Rng rng(o.seed ^ uint64_t(n));
        const auto t0 = std::chrono::steady_clock::now();
        const md::System s0 = md::make_system(n, md::Init::Displaced, rng);
        md::System lattice = md::make_system(n, md::Init::Comd, rng);
        std::printf("comd-port size=%d atoms=%zu cells=%dx%dx%d box=%.3f A\n", n, s0.atoms(), s0.cells[0],
                    s0.cells[1], s0.cells[2], s0.box[0]);
        for (const auto& prec : o.precisions) {
            const bool f32 = prec == "f32";
            const Problem pr = make_problem(s0, f32);
            std::printf("comd-port size=%d precision=%s CPU reference ready after %.1f s\n", n, prec.c_str(),
                        seconds_since(t0));
            std::fflush(stdout);
            failed += f32 ? run_problem<float>(pr, o, "f32") : run_problem<double>(pr, o, "f64");
            failed += f32 ? comd_check<float>(lattice, "f32") : comd_check<double>(lattice, "f64");
        }
        // The CPU reference on the same lattice, against the same figure.
        md::compute_forces(lattice);
        double pe, ke;
        md::energies(lattice, pe, ke);
        const Check c = check_comd_pe(pe, false);
        std::printf("comd-port check init=comd atoms=%zu precision=f64 cpu: %s: error %.3e tolerance %.1e passed=%d\n",
                    lattice.atoms(), c.detail.c_str(), c.max_error, c.tolerance, c.passed ? 1 : 0);
        failed += c.passed ? 0 : 1;
    }
    std::printf("comd-port done: %d failed check(s)\n", failed);
    return failed == 0 ? 0 : 1;
}
