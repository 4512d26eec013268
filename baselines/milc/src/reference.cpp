// The f64 CPU reference (see reference.hpp). Written from the operator's
// definition with dense 4 x 4 gamma matrices and full-spinor link products,
// so it shares nothing with the kernels' projection/reconstruction path.
#include "reference.hpp"

#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

namespace ref {

using cd = std::complex<double>;
using Mat4 = cd[4][4];

namespace {

const cd I(0, 1);

/// gamma_x, gamma_y, gamma_z, gamma_t in the DeGrand-Rossi basis (MILC's, Chroma's).
const Mat4 GAMMA[4] = {
    {{0, 0, 0, I}, {0, 0, I, 0}, {0, -I, 0, 0}, {-I, 0, 0, 0}},
    {{0, 0, 0, -1.0}, {0, 0, 1.0, 0}, {0, 1.0, 0, 0}, {-1.0, 0, 0, 0}},
    {{0, 0, I, 0}, {0, 0, 0, -I}, {-I, 0, 0, 0}, {0, I, 0, 0}},
    {{0, 0, 1.0, 0}, {0, 0, 0, 1.0}, {1.0, 0, 0, 0}, {0, 1.0, 0, 0}},
};

/// splitmix64: one small, good generator per chunk of a field.
struct Rng {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double uniform() { return (double)(next() >> 11) * 0x1.0p-53 * 2.0 - 1.0; }
};

Rng chunk_rng(uint64_t seed, uint64_t chunk) {
    Rng r{seed ^ (chunk * 0xd1b54a32d192ed03ULL)};
    r.next();
    return r;
}

cd at(const double* f, size_t complex_index) { return cd(f[2 * complex_index], f[2 * complex_index + 1]); }

void matmul4(const Mat4& a, const Mat4& b, Mat4& out) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            out[i][j] = 0;
            for (int k = 0; k < 4; k++) out[i][j] += a[i][k] * b[k][j];
        }
}

/// out(site) = gamma5 psi(site) for every site.
void apply_gamma5(const Mat4& g5, const double* psi, double* out, long sites) {
#pragma omp parallel for
    for (long x = 0; x < sites; x++)
        for (int s = 0; s < 4; s++)
            for (int c = 0; c < 3; c++) {
                cd z = 0;
                for (int k = 0; k < 4; k++) z += g5[s][k] * at(psi, x * 12 + k * 3 + c);
                out[x * 24 + (s * 3 + c) * 2] = z.real();
                out[x * 24 + (s * 3 + c) * 2 + 1] = z.imag();
            }
}

cd complex_dot(const std::vector<double>& a, const std::vector<double>& b) {
    cd s = 0;
    for (size_t i = 0; i < a.size() / 2; i++) s += std::conj(at(a.data(), i)) * at(b.data(), i);
    return s;
}

bool check(std::string& report, const char* what, double err, double bound) {
    char line[200];
    const bool ok = err <= bound;
    std::snprintf(line, sizeof line, "%s %s: %.3e (bound %.0e)\n", ok ? "ok  " : "FAIL", what, err, bound);
    report += line;
    return ok;
}

}  // namespace

long Lattice::neighbour(long site, int mu, bool forward) const {
    long stride = 1;
    for (int k = 0; k < mu; k++) stride *= l;
    const long extent = mu == 3 ? t : l;
    const long c = (site / stride) % extent;
    const long moved = forward ? (c + 1) % extent : (c + extent - 1) % extent;
    return site + (moved - c) * stride;
}

void random_reals(uint64_t seed, double* v, size_t n) {
    const size_t chunk = 1 << 16;
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < (n + chunk - 1) / chunk; c++) {
        Rng r = chunk_rng(seed, c);
        for (size_t i = c * chunk; i < n && i < (c + 1) * chunk; i++) v[i] = r.uniform();
    }
}

void random_links(uint64_t seed, double* u, long sites) {
    const long matrices = sites * 4, chunk = 4096;
#pragma omp parallel for schedule(static)
    for (long c = 0; c < (matrices + chunk - 1) / chunk; c++) {
        Rng r = chunk_rng(seed, (uint64_t)c);
        for (long m = c * chunk; m < matrices && m < (c + 1) * chunk; m++) {
            cd a[3][3];
            for (auto& row : a)
                for (auto& z : row) z = cd(r.uniform(), r.uniform());
            auto norm = [](cd* v) { return std::sqrt(std::norm(v[0]) + std::norm(v[1]) + std::norm(v[2])); };
            const double n0 = norm(a[0]);
            for (auto& z : a[0]) z /= n0;
            const cd proj = std::conj(a[0][0]) * a[1][0] + std::conj(a[0][1]) * a[1][1] + std::conj(a[0][2]) * a[1][2];
            for (int k = 0; k < 3; k++) a[1][k] -= proj * a[0][k];
            const double n1 = norm(a[1]);
            for (auto& z : a[1]) z /= n1;
            for (int k = 0; k < 3; k++) {
                const int i = (k + 1) % 3, j = (k + 2) % 3;
                a[2][k] = std::conj(a[0][i] * a[1][j] - a[0][j] * a[1][i]);
            }
            for (int k = 0; k < 9; k++) {
                u[m * 18 + 2 * k] = a[k / 3][k % 3].real();
                u[m * 18 + 2 * k + 1] = a[k / 3][k % 3].imag();
            }
        }
    }
}

void dslash(const Lattice& lat, const double* u, const double* psi, int isign, double* out) {
#pragma omp parallel for schedule(static)
    for (long x = 0; x < lat.sites(); x++) {
        cd acc[4][3] = {};
        for (int mu = 0; mu < 4; mu++) {
            // The two hops: U_mu(x) psi(x + mu) with 1 - isign gamma_mu, and
            // U_mu^dagger(x - mu) psi(x - mu) with 1 + isign gamma_mu.
            for (int dir = 0; dir < 2; dir++) {
                const bool fwd = dir == 0;
                const long y = lat.neighbour(x, mu, fwd);
                const long ls = fwd ? x : y;
                cd v[4][3];
                for (int s = 0; s < 4; s++)
                    for (int r = 0; r < 3; r++) {
                        v[s][r] = 0;
                        for (int c = 0; c < 3; c++) {
                            const cd link = fwd ? at(u, ls * 36 + mu * 9 + r * 3 + c)
                                                : std::conj(at(u, ls * 36 + mu * 9 + c * 3 + r));
                            v[s][r] += link * at(psi, y * 12 + s * 3 + c);
                        }
                    }
                const double sigma = fwd ? -isign : isign;
                for (int s = 0; s < 4; s++)
                    for (int c = 0; c < 3; c++) {
                        cd z = v[s][c];
                        for (int k = 0; k < 4; k++) z += sigma * GAMMA[mu][s][k] * v[k][c];
                        acc[s][c] += z;
                    }
            }
        }
        for (int s = 0; s < 4; s++)
            for (int c = 0; c < 3; c++) {
                out[x * 24 + (s * 3 + c) * 2] = acc[s][c].real();
                out[x * 24 + (s * 3 + c) * 2 + 1] = acc[s][c].imag();
            }
    }
}

void apply_m(const Lattice& lat, const double* u, const double* psi, double kappa, int isign, double* out) {
    dslash(lat, u, psi, isign, out);
    const size_t n = (size_t)lat.sites() * SPINOR;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) out[i] = psi[i] - kappa * out[i];
}

double dot(const double* a, const double* b, size_t n) {
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (size_t i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

double true_residual(const Lattice& lat, const double* u, const double* x, const double* b, double kappa) {
    const size_t n = (size_t)lat.sites() * SPINOR;
    std::vector<double> d(n);
    apply_m(lat, u, x, kappa, 1, d.data());
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) d[i] -= b[i];
    return std::sqrt(dot(d.data(), d.data(), n) / dot(b, b, n));
}

Compare compare(const double* got, const double* want, size_t n, double floor) {
    Compare all{0, 0, 0};
#pragma omp parallel
    {
        Compare mine{0, 0, 0};
#pragma omp for schedule(static) nowait
        for (size_t i = 0; i < n; i++) {
            if (!std::isfinite(got[i])) {
                mine.nonfinite++;
                continue;
            }
            const double e = std::fabs(got[i] - want[i]) / std::fmax(std::fabs(want[i]), floor);
            if (e > mine.max_error) mine = {e, i, mine.nonfinite};
        }
#pragma omp critical
        {
            all.nonfinite += mine.nonfinite;
            if (mine.max_error > all.max_error || (mine.max_error == all.max_error && mine.worst < all.worst)) {
                all.max_error = mine.max_error;
                all.worst = mine.worst;
            }
        }
    }
    return all;
}

bool self_checks(std::string& report) {
    bool ok = true;
    // Gammas: Hermitian, {gamma_mu, gamma_nu} = 2 delta, gamma5 = diag(1, 1, -1, -1).
    double herm = 0, cliff = 0, g5err = 0;
    for (int mu = 0; mu < 4; mu++)
        for (int nu = 0; nu < 4; nu++) {
            Mat4 a, b;
            matmul4(GAMMA[mu], GAMMA[nu], a);
            matmul4(GAMMA[nu], GAMMA[mu], b);
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    const double want = (mu == nu && i == j) ? 2 : 0;
                    cliff = std::fmax(cliff, std::abs(a[i][j] + b[i][j] - want));
                    herm = std::fmax(herm, std::abs(GAMMA[mu][i][j] - std::conj(GAMMA[mu][j][i])));
                }
        }
    Mat4 g01, g012, g5;
    matmul4(GAMMA[0], GAMMA[1], g01);
    matmul4(g01, GAMMA[2], g012);
    matmul4(g012, GAMMA[3], g5);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) g5err = std::fmax(g5err, std::abs(g5[i][j] - (i != j ? 0.0 : i < 2 ? 1.0 : -1.0)));
    ok &= check(report, "gamma_mu Hermitian", herm, 0);
    ok &= check(report, "{gamma_mu, gamma_nu} = 2 delta_mu_nu", cliff, 0);
    ok &= check(report, "gamma_x gamma_y gamma_z gamma_t = diag(1, 1, -1, -1)", g5err, 0);

    const Lattice lat{3, 4};
    const long n = lat.sites();
    std::vector<double> u(n * LINKS), x(n * SPINOR), y(n * SPINOR), dx(n * SPINOR), dy(n * SPINOR);
    random_links(11, u.data(), n);
    random_reals(12, x.data(), x.size());
    random_reals(13, y.data(), y.size());
    double unit = 0;
    for (long m = 0; m < n * 4; m++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                cd z = 0;
                for (int k = 0; k < 3; k++) z += at(u.data(), m * 9 + i * 3 + k) * std::conj(at(u.data(), m * 9 + j * 3 + k));
                unit = std::fmax(unit, std::abs(z - (i == j ? 1.0 : 0.0)));
            }
    ok &= check(report, "links unitary: |U U^dagger - 1|", unit, 1e-14);

    // <y, D x> = <D^dagger y, x>.
    dslash(lat, u.data(), x.data(), 1, dx.data());
    dslash(lat, u.data(), y.data(), -1, dy.data());
    const cd lhs = complex_dot(y, dx), rhs = complex_dot(dy, x);
    ok &= check(report, "<y, D x> = <D^dagger y, x> (relative)", std::abs(lhs - rhs) / std::abs(lhs), 1e-13);

    // gamma5 D gamma5 x = D^dagger x.
    std::vector<double> g5x(x.size()), dg5x(x.size()), g5dg5x(x.size()), ddx(x.size());
    apply_gamma5(g5, x.data(), g5x.data(), n);
    dslash(lat, u.data(), g5x.data(), 1, dg5x.data());
    apply_gamma5(g5, dg5x.data(), g5dg5x.data(), n);
    dslash(lat, u.data(), x.data(), -1, ddx.data());
    const Compare c = compare(g5dg5x.data(), ddx.data(), x.size(), 1.0);
    ok &= check(report, "gamma5 D gamma5 x = D^dagger x", c.max_error, 1e-13);
    return ok;
}

}  // namespace ref
