// Labelled CUDA port of CoMD's Lennard-Jones force and velocity Verlet step,
// written for Skylight (baselines/comd/README.md). Prints one
// `skylight-native` line per (kernel, precision, configuration).
//
//   comd_port [--sizes 20,80] [--precisions f32,f64] [--kernels force,step]
//             [--mappings atom,cell] [--wgs 64,128,256] [--samples 20]
//             [--runs-per-sample 1] [--warmup-s 0.5] [--seed S] [--cpu-only]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "port.h"

namespace {

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "comd_port: %s\nusage: comd_port [--sizes 20,80] [--precisions f32,f64] [--kernels force,step]\n"
                 "  [--mappings atom,cell] [--wgs 64,128,256] [--samples N] [--runs-per-sample R] [--warmup-s S] [--seed S] [--cpu-only]\n",
                 why);
    std::exit(2);
}

std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string w; std::getline(in, w, ',');)
        if (!w.empty()) out.push_back(w);
    return out;
}

std::vector<int> numbers(const std::string& s) {
    std::vector<int> out;
    for (const auto& w : words(s)) {
        char* end = nullptr;
        const long v = std::strtol(w.c_str(), &end, 10);
        if (*end != '\0' || v <= 0 || v > 1000) usage("a list of positive whole numbers expected");
        out.push_back(int(v));
    }
    return out;
}

void only(const std::vector<std::string>& got, std::initializer_list<const char*> allowed) {
    for (const auto& g : got) {
        bool ok = false;
        for (const char* a : allowed) ok = ok || g == a;
        if (!ok) usage(("unknown choice " + g).c_str());
    }
}

Options parse(int argc, char** argv) {
    Options o;
    // Fresh inputs every run; the seed is printed so a run can be repeated.
    o.seed = uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--cpu-only") {
            o.cpu_only = true;
            continue;
        }
        if (i + 1 >= argc) usage(("no value after " + a).c_str());
        const std::string v = argv[++i];
        if (a == "--sizes") o.sizes = numbers(v);
        else if (a == "--precisions") o.precisions = words(v);
        else if (a == "--kernels") o.kernels = words(v);
        else if (a == "--mappings") o.mappings = words(v);
        else if (a == "--wgs") o.wgs = numbers(v);
        else if (a == "--samples") o.samples = numbers(v).at(0);
        else if (a == "--runs-per-sample") o.runs_per_sample = numbers(v).at(0);
        else if (a == "--warmup-s") o.warmup_s = std::atof(v.c_str());
        else if (a == "--seed") o.seed = std::strtoull(v.c_str(), nullptr, 10);
        else usage(("unknown option " + a).c_str());
    }
    only(o.precisions, {"f32", "f64"});
    only(o.kernels, {"force", "step"});
    only(o.mappings, {"atom", "cell"});
    for (int wg : o.wgs)
        if (wg % 32 != 0 || wg > 1024) usage("block sizes must be multiples of 32 up to 1024");
    if (o.sizes.empty() || o.samples < 1) usage("nothing to run");
    if (o.cpu_only && o.runs_per_sample != 1) usage("--runs-per-sample times GPU launches; --cpu-only has none");
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    return o.cpu_only ? run_cpu_only(o) : run_gpu(o);
}
