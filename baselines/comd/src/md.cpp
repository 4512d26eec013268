// The CPU reference of the port: CoMD's LJ physics in f64 (see md.h).
#include "md.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace md {

double mass() { return MASS_AMU * AMU; }

double shift() {
    const double s2 = SIGMA * SIGMA / (CUTOFF * CUTOFF);
    const double s6 = s2 * s2 * s2;
    return 4.0 * EPSILON * s6 * (s6 - 1.0);
}

static uint64_t splitmix(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

Rng::Rng(uint64_t seed) {
    for (auto& w : s_) w = splitmix(seed);
}

uint64_t Rng::next() {
    auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
    const uint64_t out = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return out;
}

double Rng::uniform() { return double(next() >> 11) * 0x1.0p-53; }

double Rng::normal() {
    const double u1 = 1e-12 + (1.0 - 1e-12) * uniform();  // never log(0)
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

// Gaussian components, total momentum removed, then scaled so the kinetic
// energy is exactly 3/2 kB T per atom (what CoMD's setTemperature does).
static void thermal_velocities(System& s, Rng& rng) {
    const size_t n = s.atoms();
    for (auto& v : s.vel) v = rng.normal();
    for (int d = 0; d < 3; ++d) {
        double mean = 0;
        for (size_t i = 0; i < n; ++i) mean += s.vel[3 * i + d];
        mean /= double(n);
        for (size_t i = 0; i < n; ++i) s.vel[3 * i + d] -= mean;
    }
    double ke = 0;
    for (double v : s.vel) ke += v * v;
    ke *= 0.5 * mass();
    const double scale = std::sqrt(1.5 * KB * TEMPERATURE * double(n) / ke);
    for (auto& v : s.vel) v *= scale;
}

System make_system(int n, Init init, Rng& rng) {
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    System s;
    for (int d = 0; d < 3; ++d) {
        s.box[d] = n * LATTICE;
        s.cells[d] = int(std::floor(s.box[d] / CUTOFF));
        if (s.cells[d] < 3) {
            std::fprintf(stderr, "%d unit cells: fewer than 3 link cells a side\n", n);
            std::exit(2);
        }
    }
    const size_t atoms = 4 * size_t(n) * n * n;
    s.pos.reserve(3 * atoms);
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                for (const auto& b : basis) {
                    s.pos.push_back((x + b[0]) * LATTICE);
                    s.pos.push_back((y + b[1]) * LATTICE);
                    s.pos.push_back((z + b[2]) * LATTICE);
                }
    if (init == Init::Displaced) {
        for (size_t k = 0; k < s.pos.size(); ++k) {
            const double l = s.box[k % 3];
            double x = s.pos[k] + (-0.1 + 0.2 * rng.uniform());
            x -= l * std::floor(x / l);
            s.pos[k] = x < l ? x : 0.0;  // x / l rounding up to 1 gives x == l
        }
    }
    s.vel.assign(3 * atoms, 0.0);
    s.frc.assign(3 * atoms, 0.0);
    s.epot.assign(atoms, 0.0);
    thermal_velocities(s, rng);
    return s;
}

void round_to_f32(System& s) {
    for (auto* v : {&s.pos, &s.vel, &s.frc})
        for (auto& x : *v) x = double(float(x));
}

static int cell_of(const System& s, size_t i) {
    int k[3];
    for (int d = 0; d < 3; ++d) {
        const double c = std::floor(s.pos[3 * i + d] * s.cells[d] / s.box[d]);
        k[d] = c < 0 ? 0 : (c >= s.cells[d] ? s.cells[d] - 1 : int(c));
    }
    return k[0] + s.cells[0] * (k[1] + s.cells[1] * k[2]);
}

// Offset of the nearest image of b from a along dimension d.
static double min_image(double b, double a, double l) {
    double v = b - a;
    if (v > 0.5 * l) v -= l;
    if (v < -0.5 * l) v += l;
    return v;
}

Pairs compute_forces(System& s) {
    const size_t n = s.atoms();
    const int nc = int(s.ncells());
    // Counting sort of the atoms into their cells: first[c]..first[c+1].
    std::vector<int> cell(n), first(nc + 1, 0), order(n);
    for (size_t i = 0; i < n; ++i) first[(cell[i] = cell_of(s, i)) + 1]++;
    for (int c = 0; c < nc; ++c) first[c + 1] += first[c];
    {
        std::vector<int> fill(first.begin(), first.end() - 1);
        for (size_t i = 0; i < n; ++i) order[fill[cell[i]]++] = int(i);
    }
    const double rc2 = CUTOFF * CUTOFF, sh = shift();
    const int cx = s.cells[0], cy = s.cells[1], cz = s.cells[2];
    uint64_t cand = 0, inside = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : cand, inside)
    for (long i = 0; i < long(n); ++i) {
        const int c = cell[i];
        const int x = c % cx, y = (c / cx) % cy, z = c / (cx * cy);
        double f[3] = {0, 0, 0}, e = 0;
        for (int oz = -1; oz <= 1; ++oz)
            for (int oy = -1; oy <= 1; ++oy)
                for (int ox = -1; ox <= 1; ++ox) {
                    const int q = (x + ox + cx) % cx + cx * ((y + oy + cy) % cy + cy * ((z + oz + cz) % cz));
                    for (int k = first[q]; k < first[q + 1]; ++k) {
                        const int j = order[k];
                        if (j == i) continue;
                        ++cand;
                        double d[3];
                        for (int m = 0; m < 3; ++m)
                            d[m] = min_image(s.pos[3 * j + m], s.pos[3 * i + m], s.box[m]);
                        const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                        if (r2 >= rc2) continue;
                        ++inside;
                        const double q2 = SIGMA * SIGMA / r2, s6 = q2 * q2 * q2;
                        const double fr = 24.0 * EPSILON * s6 * (2.0 * s6 - 1.0) / r2;
                        for (int m = 0; m < 3; ++m) f[m] -= fr * d[m];
                        e += 0.5 * (4.0 * EPSILON * s6 * (s6 - 1.0) - sh);
                    }
                }
        for (int m = 0; m < 3; ++m) s.frc[3 * i + m] = f[m];
        s.epot[i] = e;
    }
    return {cand, inside};
}

void kick(System& s) {
    const double h = DT / (2.0 * mass());
    for (size_t k = 0; k < s.vel.size(); ++k) s.vel[k] += h * s.frc[k];
}

void drift(System& s) {
    for (size_t k = 0; k < s.pos.size(); ++k) {
        const double l = s.box[k % 3];
        double x = s.pos[k] + DT * s.vel[k];
        if (x < 0) x += l;
        if (x >= l) x -= l;
        s.pos[k] = x;
    }
}

void step(System& s) {
    kick(s);
    drift(s);
    compute_forces(s);
    kick(s);
}

void energies(const System& s, double& pe, double& ke) {
    const double n = double(s.atoms());
    double p = 0, k = 0;
    for (double e : s.epot) p += e;
    for (double v : s.vel) k += v * v;
    pe = p / n;
    ke = 0.5 * mass() * k / n;
}

}  // namespace md
